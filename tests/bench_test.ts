/**
 * The bench's building blocks (scripts/bench/), driven for real: the load generator against a
 * real server, /proc readings of this process, quantiles, the runner's options, the report
 * table. Figures are never asserted against a speed: only counts, shapes and consistency.
 */
import assert from 'node:assert/strict';
import { quantile, runLoad } from '../scripts/bench/load.ts';
import { cpuTimeMs, residentBytes } from '../scripts/bench/proc.ts';
import { runnerOptions } from '../scripts/bench/gateway_runner.ts';
import { formatScenario, table } from '../scripts/bench/report.ts';
import { compare, type Measurement } from '../scripts/bench/scenario.ts';
import { benchRequest } from '../scripts/bench/document.ts';
import { appOperations, WORLD_IDS } from '../scripts/sandbox/mod.ts';

Deno.test('quantile: nearest rank over sorted values', () => {
  const values = Float64Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(quantile(values, 0.5), 50);
  assert.equal(quantile(values, 0.99), 99);
  assert.equal(quantile(values, 1), 100);
  assert.equal(quantile(Float64Array.of(7), 0.99), 7);
  assert.ok(Number.isNaN(quantile(new Float64Array(0), 0.5)));
});

Deno.test('runLoad: counts every answer by status, latencies of 2xx only', async () => {
  let served = 0;
  const server = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen() {} }, async (req) => {
    const body = await req.json();
    served++;
    const status = served % 4 === 0 ? 503 : 200;
    return Response.json({ data: body }, { status });
  });
  try {
    const result = await runLoad({
      url: `http://127.0.0.1:${server.addr.port}/graphql`,
      body: JSON.stringify({ query: '{ a }' }),
      connections: 2,
      durationS: 0.3,
    });
    assert.ok(result.requests > 0);
    assert.equal((result.statuses['200'] ?? 0) + (result.statuses['503'] ?? 0), result.requests);
    assert.equal(result.non2xx, result.statuses['503'] ?? 0);
    assert.ok(result.non2xx > 0);
    assert.equal(result.errors, 0);
    assert.ok(result.p50Ms > 0 && result.p50Ms <= result.p99Ms);
    assert.ok(served >= result.requests);
  } finally {
    await server.shutdown();
  }
});

Deno.test('proc: CPU time grows with work; resident memory is read', async () => {
  const before = await cpuTimeMs(Deno.pid);
  let after = before;
  let spins = 0;
  while (after === before && spins++ < 2000) {
    let x = 0;
    for (let i = 0; i < 1e6; i++) x += Math.sqrt(i);
    assert.ok(x > 0);
    after = await cpuTimeMs(Deno.pid);
  }
  assert.ok(after > before, 'CPU time never advanced');
  assert.ok(await residentBytes(Deno.pid) > 1024 * 1024);
  await assert.rejects(() => cpuTimeMs(2 ** 30));
});

Deno.test('gateway_runner: options from SVC_BENCH_REGISTRY and SVC_BENCH_ALLOWED_BOT_IDS', () => {
  assert.deepEqual(runnerOptions({}), {});
  assert.deepEqual(runnerOptions({ SVC_BENCH_ALLOWED_BOT_IDS: 'any' }), { allowedBotIds: 'any' });
  const on = runnerOptions({
    SVC_BENCH_REGISTRY: 'app',
    SVC_BENCH_ALLOWED_BOT_IDS: `${WORLD_IDS.bot1}, ${WORLD_IDS.bot2}`,
  });
  assert.deepEqual(on.allowedBotIds, [WORLD_IDS.bot1, WORLD_IDS.bot2]);
  assert.equal(on.operations?.length, appOperations().length);
  const sent = JSON.parse(benchRequest().body).query;
  assert.ok(on.operations?.includes(sent), 'the bench document is in the registry verbatim');
});

Deno.test('report: table columns align; a scenario prints its measurements and ratios', () => {
  assert.equal(table([['a', 'bb'], ['ccc', '1']]), 'a    bb\n---  --\nccc   1');
  const m = (target: string, rps: number, p50Ms: number): Measurement => ({
    target,
    connections: 1,
    requests: rps,
    non2xx: 0,
    statuses: { '200': rps },
    errors: 0,
    durationS: 1,
    rps,
    p50Ms,
    p99Ms: p50Ms * 2,
    meanMs: p50Ms,
    cpuMsPerRequest: 0.5,
  });
  const c = compare('gw / direct', m('direct', 1000, 1), m('gw', 500, 1.5));
  assert.equal(c.rpsRatio, 0.5);
  assert.equal(c.addedP50Ms, 0.5);
  assert.equal(c.addedP99Ms, 1);
  assert.equal(c.cpuRatio, 1);
  const text = formatScenario({
    name: 'x',
    title: 'T',
    notes: ['n'],
    measurements: [m('direct', 1000, 1)],
    comparisons: [c],
  });
  assert.match(text, /^== x: T\n {3}n\n/);
  assert.match(text, /gw \/ direct +1 +0\.50 +\+0\.500 +\+1\.000 +1\.00/);
});

/** Runs scripts/bench/main.ts with `args` (nothing is started before the flags are read). */
async function benchCli(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ['run', '--quiet', '--allow-all', 'scripts/bench/main.ts', ...args],
    cwd: new URL('..', import.meta.url).pathname,
    stdout: 'piped',
    stderr: 'piped',
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test('bench cli: --help prints the usage (exit 0); a bad flag or scenario exits 2', async () => {
  const help = await benchCli(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: deno task bench/);
  assert.match(help.stdout, /--only <a,b,\.\.\.>.*targets, overhead, checks, gate, relay/);

  const flag = await benchCli(['--bogus']);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /^bench: Unknown option '--bogus'\nusage: deno task bench/);
  assert.doesNotMatch(flag.stderr, /\n\s+at /, 'no stack trace');

  const scenario = await benchCli(['--only', 'nope']);
  assert.equal(scenario.code, 2);
  assert.match(scenario.stderr, /^bench: unknown scenario nope/);
});
