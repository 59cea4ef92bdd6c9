/**
 * Connections that open and never send a byte (docs/operations.md "Faults"): many of them held open
 * against the gateway while ordinary traffic flows; then the fault waits for the gateway to close
 * each one (the hosts' httpHeadersTimeoutMs, checked every httpTimeoutCheckMs: the defaults
 * table). Label per connection: 'closed by the gateway', or 'held by the gateway' when it is still
 * open once that bound (plus slack) passed; the fault then closes it itself.
 *
 * Both hosts run node:http and close them. (Deno.serve, the handler of `deno task
 * serve:parallel`, has no header timeout and holds them until the peer closes them:
 * docs/operations.md "Faults".)
 */
import { DEFAULTS } from '../../../src/config/defaults.ts';
import type { Fault, FaultHost, FaultRunOptions } from '../fault.ts';
import { runFault } from '../run.ts';
import { count } from '../traffic.ts';

/** Connections opened by a brief run, and by a run of a minute or more. */
const BRIEF_CONNECTIONS = 200;
const SOAK_CONNECTIONS = 2_000;
/** How long past the bound a connection may stay open and still count as closed (ms). */
const SLACK_MS = 3_000;

/** Opens `n` raw connections to `gateway` that send nothing; resolves with them. */
async function openSilent(gateway: string, n: number): Promise<Deno.Conn[]> {
  const { hostname, port } = new URL(gateway);
  const conns: Deno.Conn[] = [];
  for (let i = 0; i < n; i += 50) {
    const batch = Math.min(50, n - i);
    conns.push(
      ...await Promise.all(
        Array.from({ length: batch }, () => Deno.connect({ hostname, port: Number(port) })),
      ),
    );
  }
  return conns;
}

/** Resolves true once `conn` was closed by the peer (a read sees the end or fails). */
async function closedByPeer(conn: Deno.Conn): Promise<true> {
  const buffer = new Uint8Array(1024);
  while (await conn.read(buffer).catch(() => null) !== null) { /* a 408, dropped */ }
  return true;
}

const name = 'browser: connections that never send a byte';

/** The fault (see the module comment). */
export const silentConnectionsFault: Fault = {
  name,
  hosts: ['deno', 'node'],
  run: (host: FaultHost, options: FaultRunOptions) =>
    runFault(name, host, options, {
      expected: ['closed by the gateway'],
      async drive(world) {
        const n = options.durationMs >= 60_000 ? SOAK_CONNECTIONS : BRIEF_CONNECTIONS;
        const conns = await openSilent(world.gateway.url, n);
        const bound = DEFAULTS.httpHeadersTimeoutMs + DEFAULTS.httpTimeoutCheckMs + SLACK_MS;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const deadline = new Promise<false>((r) => timer = setTimeout(() => r(false), bound));
        const outcomes = await Promise.all(
          conns.map((conn) => Promise.race([closedByPeer(conn), deadline])),
        );
        clearTimeout(timer);
        outcomes.forEach((closed) =>
          count(world.tally, closed ? 'closed by the gateway' : 'held by the gateway')
        );
        for (const conn of conns) {
          try {
            conn.close();
          } catch { /* closed */ }
        }
        // the rest of the run: ordinary traffic alone
        await new Promise((r) => setTimeout(r, Math.max(0, world.until - Date.now())));
      },
    }),
};
