/**
 * `deno task bench` (the task builds the npm package first). Starts the sandbox upstream in its
 * own process (scripts/sandbox/main.ts), then runs each scenario of scenarios/mod.ts: gateways
 * in their own processes, load from this process (autocannon, see load.ts). Prints a table per
 * scenario and writes the same figures to bench-results.json. Figures are reported, never
 * asserted: speed goals are ratios against a baseline measured in the same run.
 *
 * Flags: see {@link USAGE}. A bad flag or scenario name prints the usage and exits 2.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type ChildProcess, denoRun, ROOT, startChildProcess } from '../host_process.ts';
import { SANDBOX_TOKEN } from '../sandbox/mod.ts';
import { createContext } from './context.ts';
import { type BenchResults, formatScenario } from './report.ts';
import type { BenchSettings, Scenario, ScenarioReport } from './scenario.ts';
import { SCENARIOS } from './scenarios/mod.ts';
import { LOAD_CPU, pinProcess, pinUnavailable, serverCpu } from './pin.ts';

/** What `--help` prints. */
export const USAGE = `usage: deno task bench [flags]
  --duration <s>     seconds per measurement (default 2; each interleaved round of the
                     targets, checks and gate scenarios: default 10)
  --warmup <s>       seconds of warm-up before each measurement (default 0.5)
  --only <a,b,...>   scenarios to run (default all): ${SCENARIOS.map((s) => s.name).join(', ')}
  --out <file>       where the figures go (default bench-results.json at the root)
  --pin              measured servers (gateways, nginx) on the last CPU; this process (the
                     load), the upstreams and the database on CPU 0 (Linux taskset; see
                     scripts/bench/pin.ts). Off by default: the targets harness shares cores
  --help             this text`;

interface Cli {
  settings: BenchSettings;
  scenarios: readonly Scenario[];
  out: string;
}

/** Parses the flags; throws a one-line message for anything it cannot use. */
function readCli(args: string[]): Cli | 'help' {
  const { values } = parseArgs({
    args,
    options: {
      help: { type: 'boolean', default: false },
      pin: { type: 'boolean', default: false },
      duration: { type: 'string' },
      warmup: { type: 'string', default: '0.5' },
      only: { type: 'string' },
      out: { type: 'string', default: `${ROOT}bench-results.json` },
    },
  });
  if (values.help) return 'help';
  const durationS = Number(values.duration ?? 2);
  const roundS = Number(values.duration ?? 10);
  const warmupS = Number(values.warmup);
  if (!(durationS > 0) || !(warmupS >= 0)) throw new Error('--duration > 0 and --warmup >= 0');
  const names = values.only?.split(',').map((n) => n.trim());
  const unknown = names?.filter((n) => !SCENARIOS.some((s) => s.name === n)) ?? [];
  if (unknown.length > 0) {
    throw new Error(`unknown scenario ${unknown.join(', ')}: ${SCENARIOS.map((s) => s.name)}`);
  }
  return {
    settings: { durationS, warmupS, roundS, pin: values.pin },
    scenarios: names ? SCENARIOS.filter((s) => names.includes(s.name)) : SCENARIOS,
    out: values.out,
  };
}

/** The sandbox upstream in its own process; `deno task sandbox` prints its URL first. */
function startSandboxProcess(): Promise<ChildProcess> {
  return startChildProcess({
    command: denoRun('scripts/sandbox/main.ts'),
    env: { PORT: '0', HOST: '127.0.0.1' },
    ready: /^(http:\/\/\S+)$/,
  });
}

async function nodeVersion(): Promise<string> {
  const out = await new Deno.Command('node', { args: ['--version'], stdout: 'piped' }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

/** The flags, or the usage and exit 2 when they cannot be used (exit 0 for --help). */
function cliOrExit(args: string[]): Cli {
  let cli: Cli | 'help';
  try {
    cli = readCli(args);
  } catch (error) {
    console.error(`bench: ${error instanceof Error ? error.message : error}\n${USAGE}`);
    Deno.exit(2);
  }
  if (cli === 'help') {
    console.log(USAGE);
    Deno.exit(0);
  }
  return cli;
}

/** The note every scenario's report starts with under --pin. */
const PINNED_NOTE = () =>
  `pinned: load, upstreams and database on CPU ${LOAD_CPU}; measured servers on CPU ${serverCpu()}`;

/** --pin: this process (and what it starts from now on) to LOAD_CPU; exit 2 when not possible. */
async function pinSelf(): Promise<void> {
  const why = await pinUnavailable();
  if (why) {
    console.error(`bench: --pin: ${why}`);
    Deno.exit(2);
  }
  await pinProcess(Deno.pid, LOAD_CPU);
  console.log(`bench: ${PINNED_NOTE()}`);
}

async function main(): Promise<void> {
  const cli = cliOrExit(Deno.args);
  if (!existsSync(`${ROOT}npm/bin/svc-gateway.js`)) {
    throw new Error('npm/bin/svc-gateway.js is missing: run `deno task build:npm` first');
  }
  const results: BenchResults = {
    startedAt: new Date().toISOString(),
    settings: cli.settings,
    machine: {
      cpus: navigator.hardwareConcurrency,
      deno: Deno.version.deno,
      node: await nodeVersion(),
      loadGenerator: 'autocannon 9.0.0 (in the bench process, under Deno)',
    },
    scenarios: [] as ScenarioReport[],
  };
  console.log(
    `bench: ${cli.scenarios.map((s) => s.name).join(', ')}; ${cli.settings.durationS} s per ` +
      `measurement after ${cli.settings.warmupS} s of warm-up; ${results.machine.cpus} cpus, ` +
      `deno ${results.machine.deno}, node ${results.machine.node}`,
  );
  if (cli.settings.pin) await pinSelf();
  const sandbox = await startSandboxProcess();
  try {
    for (const scenario of cli.scenarios) {
      console.log(`\nrunning ${scenario.name}: ${scenario.title} ...`);
      const context = createContext(cli.settings, sandbox, SANDBOX_TOKEN);
      try {
        const report = await scenario.run(context);
        if (cli.settings.pin) report.notes.unshift(PINNED_NOTE());
        results.scenarios.push(report);
        console.log(`\n${formatScenario(report)}`);
      } finally {
        await context.stopGateways();
      }
    }
  } finally {
    await sandbox.stop();
  }
  writeFileSync(cli.out, JSON.stringify(results, null, 2) + '\n');
  console.log(`\nwrote ${cli.out}`);
}

await main();
