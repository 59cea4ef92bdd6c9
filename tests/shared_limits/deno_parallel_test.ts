/**
 * The Deno host under `deno serve --parallel` (docs/operations.md "Limits across processes";
 * hosts/deno_parallel/parallel.ts): three worker isolates on one port over one real PostgreSQL (shared
 * limits on). One startup report; the relay and its gate work there (a subscription relayed, the
 * socket ceiling held across the workers); the tenant's minute holds across them; SIGTERM ends the
 * process.
 */
import assert from 'node:assert/strict';
import { createClient } from 'graphql-ws';
import { startSandbox, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { ROOT, startChildProcess } from '../../scripts/host_process.ts';
import { startBackend } from '../fixtures/db/backend.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { forwarded, rawRequest } from '../helpers/assertions.ts';
import { seedAccounts } from '../gate/helpers.ts';
import { assertSocketsAdmitted, burst, eventually, gatedChildEnv, openSocket } from './helpers.ts';

const ME = { query: '{ currentUser { id } }' };
const BOOKINGS = 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }';

const COMMAND = [
  Deno.execPath(),
  'serve',
  '--parallel',
  '--quiet',
  `--config=${ROOT}deno.json`,
  '--allow-net',
  '--allow-env',
  '--allow-read',
  '--host',
  '127.0.0.1',
  '--port',
  '0',
  `${ROOT}hosts/deno_parallel/parallel.ts`,
];

Deno.test('deno serve --parallel (3 workers): relay, checks and shared limits', async () => {
  const cluster = await startPostgres();
  const backend = await startBackend(cluster);
  const sandbox = await startSandbox();
  const sockets: WebSocket[] = [];
  try {
    const users = await seedAccounts(backend);
    const env = gatedChildEnv(sandbox, backend, { HOST: '127.0.0.1' });
    const host = await startChildProcess({
      command: COMMAND,
      env: { ...env, DENO_JOBS: '3' },
      ready: /svc-gateway listening on (http:\/\/\S+)/,
    });
    try {
      const report = host.lines.filter((l) => l.includes('svc-gateway: gate on'));
      assert.equal(report.length, 1, host.lines.join('\n'));
      assert.ok(report[0].includes('tenant limits shared (backend)'));
      assert.ok(host.lines.some((l) => l.endsWith('(3 workers)')));

      // host check: another Host header is refused before anything
      const body = JSON.stringify(ME);
      const refused = await rawRequest(
        host.url,
        [
          'POST /svc/graphql HTTP/1.1',
          'Host: evil.example',
          'Content-Type: application/json',
          `Content-Length: ${body.length}`,
          'Connection: close',
        ].join('\r\n'),
        body,
      );
      assert.equal(refused.status, 403, refused.body);

      const reached = forwarded(sandbox).length;
      const started = performance.now();
      const tally = await burst([host.url], 1800, ME, { authorization: `Bearer ${users.a.jwt}` });
      const refill = Math.ceil(((performance.now() - started) / 1000) * 10);
      assert.deepEqual(tally.other, {});
      assert.ok(tally.admitted <= 600 + refill + 3 * 20, `${tally.admitted} admitted`);
      assert.ok(tally.admitted >= 600 - 3 * 20, `${tally.admitted} admitted`);
      assert.equal(forwarded(sandbox).length - reached, tally.admitted);

      const client = createClient({
        url: `${host.url.replace('http', 'ws')}/svc/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { authToken: `Bearer ${users.b.jwt}` },
        retryAttempts: 0,
      });
      try {
        const events: unknown[] = [];
        await new Promise<void>((resolve, reject) => {
          client.subscribe({ query: BOOKINGS, variables: { botID: WORLD_IDS.bot3 } }, {
            next: (value) => void events.push(value),
            error: reject,
            complete: resolve,
          });
        });
        assert.equal(events.length, 3, 'the relay works under --parallel');
      } finally {
        await client.dispose();
      }
      // the subscription's socket was user b's: its worker gives the slot back to the shared
      // count with its next sync (the documented undershoot of one sync); wait for it
      const live = async () =>
        (await backend.seed.query<{ n: number }>(
          `select coalesce(sum(sockets), 0)::int as n from public.svc_socket_leases
            where expires_at > clock_timestamp()`,
        )).rows[0].n;
      await eventually(async () => await live() === 0, 10_000);

      const opened = Array.from(
        { length: 24 },
        () => openSocket(host.url, `Bearer ${users.b.jwt}`),
      );
      sockets.push(...opened.map((s) => s.ws));
      const outcomes = await Promise.all(opened.map((s) => s.outcome));
      const acked = outcomes.filter((o) => o === 'ack').length;
      assertSocketsAdmitted(acked, 8, 3, [...host.lines, ...host.errors], outcomes.join(','));
      assert.deepEqual([...new Set(outcomes.filter((o) => o !== 'ack'))], ['4429']);
    } finally {
      for (const ws of sockets) if (ws.readyState !== WebSocket.CLOSED) ws.close();
      await host.stop();
    }
  } finally {
    await sandbox.close();
    await backend.stop();
    await cluster.stop();
  }
});
