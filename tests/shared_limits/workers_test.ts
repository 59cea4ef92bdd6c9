/**
 * `svc-gateway --workers 3` (docs/operations.md "Limits across processes"): the built npm package's
 * bin as a real child process, three node:cluster workers on one port over one real PostgreSQL
 * (shared limits on). One startup report for the deployment; health from every worker; the tenant's
 * minute and its socket ceiling hold across the workers; a killed worker is replaced; SIGTERM
 * drains every worker and the primary exits. `deno task build:npm` first.
 */
import assert from 'node:assert/strict';
import { startSandbox } from '../../scripts/sandbox/mod.ts';
import { ROOT, startHostProcess } from '../../scripts/host_process.ts';
import { startBackend } from '../fixtures/db/backend.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { forwarded } from '../helpers/assertions.ts';
import { seedAccounts } from '../gate/helpers.ts';
import { assertSocketsAdmitted, burst, eventually, gatedChildEnv, openSocket } from './helpers.ts';

const ME = { query: '{ currentUser { id } }' };

/** Child pids of `pid` (its main thread's children), from /proc. */
async function childrenOf(pid: number): Promise<number[]> {
  const text = await Deno.readTextFile(`/proc/${pid}/task/${pid}/children`).catch(() => '');
  return text.trim().split(/\s+/).filter((p) => p !== '').map(Number);
}

async function alive(pid: number): Promise<boolean> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`).catch(() => null);
  return stat !== null && !/^\d+ \(.*\) Z/.test(stat);
}

Deno.test('svc-gateway --workers 3: one deployment, shared limits, drained on SIGTERM', async () => {
  const cluster = await startPostgres();
  const backend = await startBackend(cluster);
  const sandbox = await startSandbox();
  const sockets: WebSocket[] = [];
  try {
    const users = await seedAccounts(backend);
    const env = gatedChildEnv(sandbox, backend, { HOST: '127.0.0.1', PORT: '0' });
    const host = await startHostProcess('node', { env: { ...env, WORKERS: '3' } });
    try {
      const report = host.lines.filter((l) => l.startsWith('svc-gateway: gate on'));
      assert.equal(report.length, 1, host.lines.join('\n'));
      assert.ok(report[0].includes('tenant limits shared (backend)'), report[0]);
      assert.equal(host.lines.filter((l) => l.includes('listening on')).length, 1);
      assert.ok(host.lines.some((l) => l.endsWith('(3 workers)')));
      const workers = await childrenOf(host.pid);
      assert.equal(workers.length, 3, `workers ${workers}`);

      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${host.url}/svc/healthz`);
        assert.equal(res.status, 200);
        await res.body?.cancel();
      }

      const reached = forwarded(sandbox).length;
      const started = performance.now();
      const tally = await burst([host.url], 1800, ME, { authorization: `Bearer ${users.a.jwt}` });
      const refill = Math.ceil(((performance.now() - started) / 1000) * 10);
      assert.deepEqual(tally.other, {});
      assert.ok(tally.admitted <= 600 + refill + 3 * 20, `${tally.admitted} admitted`);
      assert.ok(tally.admitted >= 600 - 3 * 20, `${tally.admitted} admitted`);
      assert.equal(forwarded(sandbox).length - reached, tally.admitted);

      const opened = Array.from(
        { length: 24 },
        () => openSocket(host.url, `Bearer ${users.b.jwt}`),
      );
      sockets.push(...opened.map((s) => s.ws));
      const outcomes = await Promise.all(opened.map((s) => s.outcome));
      const acked = outcomes.filter((o) => o === 'ack').length;
      // exactly 8, or the documented per-process bound when a worker missed a deadline
      assertSocketsAdmitted(acked, 8, 3, host.lines, outcomes.join(','));
      assert.deepEqual([...new Set(outcomes.filter((o) => o !== 'ack'))], ['4429']);

      // a worker that dies is replaced
      Deno.kill(workers[2], 'SIGKILL');
      assert.ok(
        await eventually(async () => {
          const now = await childrenOf(host.pid);
          return now.length === 3 && !now.includes(workers[2]);
        }, 10_000),
        'a new worker took its place',
      );
      assert.ok(host.lines.some((l) => /worker \d exited \(SIGKILL\); starting another/.test(l)));
      const res = await fetch(`${host.url}/svc/healthz`);
      assert.equal(res.status, 200);
      await res.body?.cancel();

      // SIGTERM drains: requests in flight on every worker finish with their answers
      for (const ws of sockets) ws.close();
      sandbox.switches.delays = [{ ms: 700 }];
      const inFlight = Array.from({ length: 6 }, () =>
        fetch(`${host.url}/svc/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${users.b.jwt}` },
          body: JSON.stringify(ME),
        }).then(async (r) => ({ status: r.status, text: await r.text() })));
      await sandbox.waitFor(() => forwarded(sandbox).length >= reached + tally.admitted + 6);
      const all = await childrenOf(host.pid);
      await host.stop();
      for (const answer of await Promise.all(inFlight)) {
        assert.equal(answer.status, 200, answer.text);
      }
      for (const pid of all) assert.equal(await alive(pid), false, `worker ${pid} still runs`);
    } finally {
      await host.stop();
    }
  } finally {
    for (const ws of sockets) if (ws.readyState !== WebSocket.CLOSED) ws.close();
    await sandbox.close();
    await backend.stop();
    await cluster.stop();
  }
});

Deno.test('svc-gateway --workers: a bad count is a usage error; per-process limits warn', async () => {
  const bin = `${ROOT}npm/bin/svc-gateway.js`;
  const bad = await new Deno.Command('node', {
    args: [bin, '--workers', 'many'],
    env: { SVC_TOKEN: 'token-0123456789' },
    stdout: 'piped',
    stderr: 'piped',
  }).output();
  assert.equal(bad.code, 2);
  assert.match(new TextDecoder().decode(bad.stderr), /usage: svc-gateway .*--workers N\|auto/);

  const host = await startHostProcess('node', {
    env: { SVC_TOKEN: 'token-0123456789', HOST: '127.0.0.1', PORT: '0', WORKERS: '2' },
  });
  try {
    assert.equal(host.lines.filter((l) => l.includes('tenant limits per-process')).length, 1);
    assert.equal(host.lines.filter((l) => l.startsWith('WARNING: 2 workers')).length, 1);
    assert.equal((await childrenOf(host.pid)).length, 2);
  } finally {
    await host.stop();
  }
});
