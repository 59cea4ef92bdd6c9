/**
 * The sandbox upstream's server: startSandbox and what it returns (see README.md beside this file).
 * mod.ts is the API that tests, the demo and the benchmark import; this module is what the
 * `svc-gateway sandbox` program needs (program.ts), without the app documents of operations.ts
 * (which read data/upstream/operations/, a folder the npm package does not carry).
 *
 * Why node:http + `ws` rather than `Deno.serve`: the drop switch must close a connection without
 * writing a byte, which Deno.serve cannot do (it sends the status line before a failing body);
 * `ws` also gives exact control of close frames and of control-frame pongs.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequestListener } from './http.ts';
import type { ExecContext } from './mocks.ts';
import type { ReceivedRequest, ReceivedSocket } from './record.ts';
import { upstreamSchema } from './schema.ts';
import { defaultSwitches, type SandboxSwitches } from './switches.ts';
import { createWorld, type World } from './world.ts';
import { attachSockets } from './ws.ts';

/**
 * The token the sandbox accepts by default (`authorization: Bearer <it>`, and socket init): a fixed
 * test value that opens this sandbox only, never a master token of the platform, so the
 * `svc-gateway sandbox` program prints it (program.ts) for the gateway's SVC_TOKEN.
 */
export const SANDBOX_TOKEN = 'sandbox-master-token-0123456789';

/** A running sandbox (see README.md for every shape). */
export interface Sandbox {
  /** 'http://127.0.0.1:<port>' (the gateway's SVC_API_BASE). */
  url: string;
  /** 'ws://127.0.0.1:<port>/graphql'. */
  wsUrl: string;
  /** The token this sandbox accepts. */
  token: string;
  /** The deterministic world (workspaces, bots, resource ids). */
  world: World;
  /** HTTP requests in arrival order. */
  received: ReceivedRequest[];
  /** Upstream sockets in arrival order. */
  sockets: ReceivedSocket[];
  /** Mutable switches (see switches.ts); assigning a whole object copies it in. */
  switches: SandboxSwitches;
  /** Closes every open socket with `code` and `reason`; returns how many it closed. */
  closeSockets(code: number, reason: string): number;
  /**
   * Resolves once `check()` is true (polled every 5 ms); rejects after `timeoutMs`
   * (default 5000) with an Error naming `what`.
   */
  waitFor(check: () => boolean, what?: string, timeoutMs?: number): Promise<void>;
  /** Clears `received` and `sockets` (in place), restores the switches (in place) and the world. */
  reset(): void;
  /** Stops listening, terminates sockets, cuts pending delays short. */
  close(): Promise<void>;
}

/** Options of startSandbox: port (default 0 = a free one), hostname (default '127.0.0.1'), token. */
export interface SandboxOptions {
  port?: number;
  hostname?: string;
  token?: string;
}

function sleeper() {
  const pending = new Map<ReturnType<typeof setTimeout>, () => void>();
  return {
    sleep(ms: number): Promise<void> {
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          pending.delete(timer);
          resolve();
        }, ms);
        pending.set(timer, resolve);
      });
    },
    wakeAll() {
      for (const [timer, resolve] of pending) {
        clearTimeout(timer);
        resolve();
      }
      pending.clear();
    },
  };
}

function waitFor(check: () => boolean, what = 'condition', timeoutMs = 5000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = () => {
      if (check()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting: ${what}`));
      setTimeout(poll, 5);
    };
    poll();
  });
}

/** Starts a sandbox; the schema is built once per process (first start). */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  upstreamSchema();
  const token = options.token ?? SANDBOX_TOKEN;
  const hostname = options.hostname ?? '127.0.0.1';
  const world = createWorld();
  const switches = defaultSwitches();
  const ctx: ExecContext = { world, switches };
  const received: ReceivedRequest[] = [];
  const sockets: ReceivedSocket[] = [];
  let httpSeq = 0;
  let socketSeq = 0;
  const timers = sleeper();
  const server = createServer(
    createRequestListener({
      ctx,
      token,
      received,
      nextSeq: () => ++httpSeq,
      sleep: timers.sleep,
    }),
  );
  const control = attachSockets(server, {
    ctx,
    token,
    sockets,
    nextSeq: () => ++socketSeq,
    sleep: timers.sleep,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, hostname, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  return {
    url: `http://${host}:${port}`,
    wsUrl: `ws://${host}:${port}/graphql`,
    token,
    world,
    received,
    sockets,
    get switches() {
      return switches;
    },
    set switches(value: SandboxSwitches) {
      Object.assign(switches, value);
    },
    closeSockets: (code, reason) => control.closeAll(code, reason),
    waitFor,
    reset() {
      received.length = 0;
      sockets.length = 0;
      httpSeq = 0;
      socketSeq = 0;
      Object.assign(switches, defaultSwitches());
      world.reset();
    },
    async close() {
      timers.wakeAll();
      control.terminateAll();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
