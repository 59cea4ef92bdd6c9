/**
 * `deno task demo`: the gateway end to end with no configuration at all. Starts the sandbox
 * upstream in this process and the gateway on both hosts as child processes on loopback (the
 * Deno host `hosts/deno/serve.ts`, the Node host from the built npm package), each with
 * SVC_TOKEN=<sandbox token>, SVC_API_BASE=<sandbox url>, HOST=127.0.0.1 and PORT 8787 / 8788 (a
 * free port when those are taken). Prints each host's startup lines, sends real app documents
 * and three refusals through each host (scripts/demo/traffic.ts), an operator reading the admin
 * panel, a subscription through each host's socket relay with every frame it receives and a
 * subscribe naming a foreign bot refused in-band (scripts/demo/relay.ts), then a sign-up on a gate-on gateway per host (scripts/demo/signup.ts: sign in,
 * provision, create and rename a bot, query it through the gate), then keeps serving and prints
 * curl lines until Ctrl-C.
 *
 * `--once`: free ports, exit after the traffic: 0 when every answer was the expected one, else 1.
 * The master token is never printed: any line carrying it is masked.
 */
import { existsSync } from 'node:fs';
import {
  type HostKind,
  type HostProcess,
  portIsFree,
  ROOT,
  startHostProcess,
} from './host_process.ts';
import { appOperation, demoCalls, type DemoResult, FOREIGN_BOT, sendCall } from './demo/traffic.ts';
import { type Sandbox, SANDBOX_TOKEN, startSandbox, WORLD_IDS } from './sandbox/mod.ts';
import { adminDemo, demoAdminPassword } from './demo/admin.ts';
import { signupDemo } from './demo/signup.ts';
import { relayDemo } from './demo/relay.ts';

const ADMIN = demoAdminPassword(Deno.env.toObject());

/** The fixed demo ports, so the printed curl lines stay the same from run to run. */
const DEMO_PORTS: Record<HostKind, number> = { deno: 8787, node: 8788 };
const HOST_TITLES: Record<HostKind, string> = {
  deno: 'Deno host (deno run hosts/deno/serve.ts)',
  node: 'Node host (node npm/bin/svc-gateway.js, the built npm package)',
};

/** `sand…(31 chars)`: enough to recognise a token, never enough to use it. */
function mask(secret: string): string {
  return `${secret.slice(0, 4)}…(${secret.length} chars)`;
}

/** Prints a line, masking the sandbox token wherever it appears. */
function say(line = ''): void {
  console.log(
    line.replaceAll(SANDBOX_TOKEN, mask(SANDBOX_TOKEN)).replaceAll(
      ADMIN.password,
      '<admin password>',
    ),
  );
}

async function startHost(kind: HostKind, sandbox: Sandbox, once: boolean): Promise<HostProcess> {
  const fixed = DEMO_PORTS[kind];
  const tryPort = !once && portIsFree(fixed);
  const env = (port: number) => ({
    SVC_TOKEN: SANDBOX_TOKEN,
    SVC_API_BASE: sandbox.url,
    HOST: '127.0.0.1',
    PORT: String(port),
    ADMIN_PASSWORD: ADMIN.password,
  });
  if (tryPort) {
    try {
      return await startHostProcess(kind, { env: env(fixed) });
    } catch { /* taken between the probe and the bind: fall back to a free port */ }
  }
  return await startHostProcess(kind, { env: env(0) });
}

function printResult(kind: HostKind, result: DemoResult): void {
  const { call, status } = result;
  const head = `  [${kind}] ${call.label.padEnd(26)} ${status}`;
  const verdict = result.problem === '' ? '' : `   <-- WRONG: ${result.problem}`;
  if (call.code !== undefined) {
    const delta = result.receivedAfter - result.receivedBefore;
    say(
      `${head} ${call.code.padEnd(21)} upstream received ${result.receivedBefore} -> ` +
        `${result.receivedAfter} (${delta === 0 ? 'nothing' : `${delta} request(s)`})${verdict}`,
    );
  } else {
    say(`${head} ${result.excerpt}${verdict}`);
  }
}

async function runTraffic(host: HostProcess, sandbox: Sandbox): Promise<number> {
  say(`\n${HOST_TITLES[host.kind]} at ${host.url}/svc/graphql`);
  let problems = 0;
  for (const call of demoCalls()) {
    const result = await sendCall(host.url, sandbox, call);
    printResult(host.kind, result);
    if (result.problem !== '') problems++;
  }
  const auth = sandbox.received.at(-1)?.headers.authorization ?? '';
  const injected = auth === `Bearer ${sandbox.token}`;
  say(
    `  [${host.kind}] the demo sent no authorization header; the upstream saw ` +
      (injected ? `Bearer ${mask(sandbox.token)} (the master token, injected)` : 'none'),
  );
  const operator = await adminDemo(host.url, ADMIN.password);
  for (const line of operator.lines) say(`  [${host.kind}] ${line}`);
  if (operator.problem !== '') say(`  [${host.kind}] admin: WRONG: ${operator.problem}`);
  const relay = await relayDemo(host.url, sandbox);
  for (const line of relay.lines) say(`  [${host.kind}] ${line}`);
  return problems + (operator.problem === '' ? 0 : 1) + relay.problems;
}

function curlLines(host: HostProcess): string[] {
  const query = appOperation('DealsIndicator').query.replace(/\s+/g, ' ').trim();
  const curl = (botID: string) => {
    const body = JSON.stringify({ query, variables: { botID } });
    return `curl -s ${host.url}/svc/graphql -H 'content-type: application/json' -d '${body}'`;
  };
  return [
    `# ${host.kind} host, a query for bot1 (200):`,
    curl(WORLD_IDS.bot1),
    `# ${host.kind} host, a bot this deployment does not hold (403 BotNotAllowed):`,
    curl(FOREIGN_BOT),
  ];
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const signals = ['SIGINT', 'SIGTERM'] as const;
    const handler = () => {
      for (const signal of signals) Deno.removeSignalListener(signal, handler);
      resolve();
    };
    for (const signal of signals) Deno.addSignalListener(signal, handler);
  });
}

async function main(): Promise<number> {
  const once = Deno.args.includes('--once');
  if (!existsSync(`${ROOT}npm/bin/svc-gateway.js`)) {
    console.error('demo: npm/bin/svc-gateway.js is missing: run `deno task build:npm` first');
    return 2;
  }
  const sandbox = await startSandbox();
  const hosts: HostProcess[] = [];
  const cleanup = async () => {
    await Promise.allSettled(hosts.map((host) => host.stop()));
    await sandbox.close();
  };
  try {
    say(`sandbox upstream at ${sandbox.url} (token ${mask(sandbox.token)})`);
    say(`admin panel password: ${ADMIN.origin}`);
    for (const kind of ['deno', 'node'] as const) {
      const host = await startHost(kind, sandbox, once);
      hosts.push(host);
      say(`\n${HOST_TITLES[kind]} printed:`);
      for (const line of host.lines) say(`  ${line}`);
    }
    let problems = 0;
    for (const host of hosts) problems += await runTraffic(host, sandbox);
    say('\nSign-up on a gate-on gateway per host (own sandbox, PostgreSQL backend):');
    const signup = await signupDemo(['deno', 'node']);
    for (const line of signup.lines) say(`  ${line}`);
    problems += signup.problems;
    say(`\n${problems === 0 ? 'all answers as expected' : `${problems} answer(s) WRONG`}`);
    if (once) return problems === 0 ? 0 : 1;
    say('\nServing until Ctrl-C. Try:');
    for (const host of hosts) for (const line of curlLines(host)) say(line);
    await waitForSignal();
    say('\nstopping');
    return 0;
  } finally {
    await cleanup();
  }
}

Deno.exit(await main());
