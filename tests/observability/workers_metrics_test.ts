/**
 * A worker deployment's scrape on real processes (docs/operations.md "Metrics of a worker
 * deployment"): `svc-gateway --workers 2` (the built npm package; `deno task build:npm` first)
 * keeps a killed worker's counts and answers around a stalled one (SIGSTOP) after the bounded
 * wait, saying it is missing; `deno task serve:parallel` (the Deno host's worker mode, one
 * command) runs 2 isolates whose every scrape answers for both, and stops on SIGTERM.
 */
import assert from 'node:assert/strict';
import { startSandbox, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { ROOT, startChildProcess, startHostProcess } from '../../scripts/host_process.ts';
import { sandboxEnv } from '../helpers/setup.ts';
import { childPids } from '../../scripts/bench/proc.ts';
import { eventually } from '../shared_limits/helpers.ts';
import { freshFetch, postsSpread, sample } from './helpers.ts';

const OK = {
  query: 'query DealsIndicator($botID: BotID!) { bot(id: $botID) { id dealsPageIndicatorActive } }',
  variables: { botID: WORLD_IDS.bot1 },
};
const REQ = 'svc_requests_total{route="graphql",status="200"}';

function metricsEnv(env: Record<string, string | undefined>): Record<string, string> {
  return { ...env as Record<string, string>, METRICS: '1', HOST: '127.0.0.1', PORT: '0' };
}

/** A scrape on a connection of its own, given up after 3 s (it may land on a stopped worker). */
async function scrape(url: string): Promise<string | null> {
  try {
    const res = await freshFetch(`${url}/svc/metrics`, { signal: AbortSignal.timeout(3_000) });
    return res.status === 200 ? await res.text() : null;
  } catch {
    return null;
  }
}

/** The first scrape that answers (a connection handed to a stopped worker never does). */
async function answeredScrape(url: string): Promise<string> {
  for (let i = 0; i < 4; i++) {
    const text = await scrape(url);
    if (text !== null) return text;
  }
  throw new Error('no scrape answered');
}

Deno.test('svc-gateway --workers 2: a killed worker keeps its counts, a stalled one is missing', async () => {
  const sandbox = await startSandbox();
  const host = await startHostProcess('node', {
    env: { ...metricsEnv(sandboxEnv(sandbox)), WORKERS: '2' },
  });
  const stopped: number[] = [];
  try {
    const sent = 12;
    assert.deepEqual(new Set(await postsSpread(host.url, OK, sent)), new Set([200]));
    assert.equal(sample(await answeredScrape(host.url), REQ), sent);

    const [first] = await childPids(host.pid);
    Deno.kill(first, 'SIGKILL');
    assert.ok(
      await eventually(async () => {
        const now = await childPids(host.pid);
        return now.length === 2 && !now.includes(first);
      }, 10_000),
      'a new worker took its place',
    );
    assert.ok(await eventually(() => host.lines.some((l) => /starting another/.test(l)), 5_000));
    await eventually(
      async () => sample(await answeredScrape(host.url), 'svc_metrics_workers_missing') === 0,
      10_000,
    );
    const afterKill = await answeredScrape(host.url);
    assert.equal(sample(afterKill, REQ), sent, "the killed worker's counts stay in the sum");
    assert.equal(sample(afterKill, 'svc_workers'), 2);

    // SIGSTOP one worker: the other answers after the bounded wait, the stopped one missing
    // and counted with its last text
    const [victim] = await childPids(host.pid);
    Deno.kill(victim, 'SIGSTOP');
    stopped.push(victim);
    const stalled = await answeredScrape(host.url);
    assert.equal(sample(stalled, 'svc_metrics_workers_missing'), 1, stalled);
    assert.equal(sample(stalled, REQ), sent, 'a stalled worker does not take its counts away');
    Deno.kill(victim, 'SIGCONT');
    stopped.pop();
  } finally {
    for (const pid of stopped) Deno.kill(pid, 'SIGCONT');
    await host.stop();
    await sandbox.close();
  }
});

Deno.test('deno task serve:parallel (2 workers): every scrape answers for both isolates', async () => {
  const sandbox = await startSandbox();
  const host = await startChildProcess({
    command: [Deno.execPath(), 'task', '-q', `--config=${ROOT}deno.json`, 'serve:parallel'],
    env: { ...metricsEnv(sandboxEnv(sandbox)), WORKERS: '2' },
    ready: /svc-gateway listening on (http:\/\/\S+)/,
  });
  try {
    assert.ok(host.lines.some((l) => l.endsWith('(2 workers)')), host.lines.join('\n'));
    const sent = 40;
    assert.deepEqual(new Set(await postsSpread(host.url, OK, sent)), new Set([200]));
    const workers = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const text = await answeredScrape(host.url);
      assert.equal(sample(text, REQ), sent, text);
      assert.equal(sample(text, 'svc_workers'), 2);
      assert.equal(sample(text, 'svc_metrics_workers_missing'), 0);
      for (const m of text.matchAll(/^process_heap_used_bytes\{worker="([0-9a-f]{8})"\}/gm)) {
        workers.add(m[1]);
      }
    }
    assert.equal(workers.size, 2, [...workers].join(', '));
  } finally {
    await host.stop();
    await sandbox.close();
  }
});

Deno.test('deno task serve:parallel: a bad worker count is a usage error (exit 2)', async () => {
  for (const args of [['--workers', 'x'], ['--workers', '65'], ['--bogus']]) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ['task', '-q', `--config=${ROOT}deno.json`, 'serve:parallel', ...args],
      env: { HOST: '127.0.0.1', PORT: '0' },
      stdout: 'piped',
      stderr: 'piped',
      signal: AbortSignal.timeout(20_000),
    }).output();
    assert.equal(out.code, 2, args.join(' '));
    assert.match(new TextDecoder().decode(out.stderr), /usage: deno task serve:parallel/);
  }
});
