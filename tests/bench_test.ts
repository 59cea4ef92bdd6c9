/**
 * The bench's building blocks (scripts/bench/), driven for real: the load generator against a
 * real server, /proc readings of this process, quantiles, the runner's options, the report
 * table. Figures are never asserted against a speed: only counts, shapes and consistency.
 */
import assert from 'node:assert/strict';
import { quantile, runLoad } from '../scripts/bench/load.ts';
import { cpuTimeMs, residentBytes } from '../scripts/bench/proc.ts';
import { runnerOptions, runnerServer } from '../scripts/bench/gateway_runner.ts';
import { serveDeno } from '../hosts/deno/server.ts';
import { serveWithDenoServe as serveOnDenoServe } from '../hosts/deno_parallel/serve_handler.ts';
import { formatScenario, table } from '../scripts/bench/report.ts';
import { compare, type Measurement } from '../scripts/bench/scenario.ts';
import { benchRequest } from '../scripts/bench/document.ts';
import { measurePaired } from '../scripts/bench/paired.ts';
import { range } from '../scripts/bench/rounds.ts';
import { createContext } from '../scripts/bench/context.ts';
import { startFixedUpstream } from '../scripts/bench/scenarios/targets.ts';
import { allowedCpus, pinProcess, pinUnavailable, serverCpu } from '../scripts/bench/pin.ts';
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

Deno.test('gateway_runner: SVC_BENCH_DENO_SERVE=1 serves on Deno.serve, anything else on node:http', () => {
  assert.equal(runnerServer({ SVC_BENCH_DENO_SERVE: '1' }), serveOnDenoServe);
  assert.equal(runnerServer({}), serveDeno);
  assert.equal(runnerServer({ SVC_BENCH_DENO_SERVE: '0' }), serveDeno);
  assert.notEqual(serveDeno, serveOnDenoServe);
});

Deno.test('range: min, max and median, values kept in their order', () => {
  assert.deepEqual(range('s', 'f', [3, 1, 2]), {
    subject: 's',
    figure: 'f',
    min: 1,
    max: 3,
    median: 2,
    values: [3, 1, 2],
  });
  assert.equal(range('s', 'f', [4, 1, 3, 2]).median, 2.5);
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
  assert.match(help.stdout, /--pin +measured servers/);

  const flag = await benchCli(['--bogus']);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /^bench: Unknown option '--bogus'\nusage: deno task bench/);
  assert.doesNotMatch(flag.stderr, /\n\s+at /, 'no stack trace');

  const scenario = await benchCli(['--only', 'nope']);
  assert.equal(scenario.code, 2);
  assert.match(scenario.stderr, /^bench: unknown scenario nope/);
});

Deno.test('pin: every thread of a process moves to one CPU; a missing process or CPU throws', async () => {
  const why = await pinUnavailable();
  if (why) {
    console.log(`pin test skipped: ${why}`);
    return;
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: ['eval', 'await new Promise((r) => setTimeout(r, 60_000))'],
    stdout: 'null',
    stderr: 'null',
  }).spawn();
  try {
    const cpu = serverCpu();
    assert.notEqual(await allowedCpus(child.pid), String(cpu), 'starts unpinned');
    await pinProcess(child.pid, cpu);
    assert.equal(await allowedCpus(child.pid), String(cpu));
    for (const task of Deno.readDirSync(`/proc/${child.pid}/task`)) {
      const status = Deno.readTextFileSync(`/proc/${child.pid}/task/${task.name}/status`);
      assert.match(
        status,
        new RegExp(`^Cpus_allowed_list:\\s+${cpu}$`, 'm'),
        `thread ${task.name}`,
      );
    }
    await assert.rejects(() => pinProcess(2 ** 30, cpu), /could not pin .*No such file/);
    await assert.rejects(() => pinProcess(child.pid, cpu + 1), /could not pin .*Invalid argument/);
  } finally {
    child.kill('SIGKILL');
    await child.status;
  }
});

Deno.test('paired slices: two servers loaded together, one ratio per slice', async () => {
  const servers = [await startFixedUpstream(), await startFixedUpstream()];
  try {
    const settings = { durationS: 0.2, warmupS: 0, roundS: 0.2, pin: false };
    const context = createContext(settings, servers[0], 'unused');
    const [base, subject] = servers.map((s, i) => ({
      label: i === 0 ? 'one' : 'two',
      url: `${s.url}/graphql`,
      pid: s.pid,
    }));
    const body = JSON.stringify({ query: '{ bot { id } }' });
    const result = await measurePaired(context, base, subject, body, {
      slices: 2,
      sliceS: 0.4,
      warmupS: 0.2,
    });
    assert.deepEqual(result.measurements.map((m) => m.target), [
      'one p1',
      'two p1',
      'one p2',
      'two p2',
    ]);
    for (const m of result.measurements) {
      assert.equal(m.connections, 16);
      assert.ok(m.requests > 0 && m.statuses['200'] === m.requests, JSON.stringify(m.statuses));
      assert.ok(Number.isFinite(m.cpuMsPerRequest) && m.cpuMsPerRequest >= 0);
    }
    assert.deepEqual(result.ranges.map((r) => r.figure), [
      'paired req/s x one (c=16 each)',
      'paired cpu per req x one',
    ]);
    const [rps] = result.ranges;
    const ratio = (i: number) =>
      result.measurements[2 * i + 1].rps / result.measurements[2 * i].rps;
    assert.deepEqual(rps.values, [ratio(0), ratio(1)]);
    assert.equal(rps.min, Math.min(...rps.values));
    assert.equal(rps.median, (rps.values[0] + rps.values[1]) / 2);
  } finally {
    for (const s of servers) await s.stop();
  }
});
