/**
 * Provisioning (POST /svc/auth/provision) under a backend fault: SPEC "Route table" provision
 * row, "Sign-up and bot routes" and "Database hint mapping" ("a 5xx becomes 503
 * ProxyAuthUnavailable"; no answer likewise, src/backend/hints.ts).
 *
 * Account C (no workspace) signs up while the fault lasts:
 * - svc_provision failing (unreachable, past its 10 s deadline, 500, an answer that is not a
 *   provision state): 503 ProxyAuthUnavailable, and no bot is created upstream;
 * - svc_bot_attach failing after the upstream created the bot: 503 ProxyAuthUnavailable, and
 *   the new upstream bot is deleted again (as many deletes as creates).
 * Once healed, C's provision creates exactly one bot, and the upstream workspace holds one bot
 * more than before the fault.
 */
import { WORLD_IDS } from '../../sandbox/mod.ts';
import type { Fault } from '../fault.ts';
import type { Behaviour } from './fault_proxy.ts';
import { type DriveContext, runBackendFault, sleep } from './run.ts';
import { callerFetch, count, labelOf } from './traffic.ts';

const REFUSED = '503 ProxyAuthUnavailable';
const PROVISIONED = 'provisioned';
/** A fresh sign-up arrives this often during the fault (ms). */
const ARRIVAL_MS = 400;

/** POST provision with `jwt`; 'provisioned' for a 200 that created a bot, else the label. */
async function provision(gateway: string, jwt: string): Promise<string> {
  const response = await callerFetch(`${gateway}/svc/auth/provision`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}` },
    body: '{}',
  });
  if (response.status !== 200) return await labelOf(response);
  const body = await response.json();
  return body?.created?.id ? PROVISIONED : `200 created ${JSON.stringify(body?.created)}`;
}

function upstreamCalls(ctx: DriveContext, op: string, from: number): number {
  return ctx.world.sandbox.received.slice(from).filter((r) => r.search === `?op=${op}`).length;
}

/** Where the fault is: the provision state itself, or the attach after the upstream create. */
type Where = 'state' | 'attach';

async function drive(ctx: DriveContext, where: Where, fault: Behaviour | 'unreachable') {
  const { world, gateway } = ctx;
  const botsBefore = world.sandbox.world.botsOf(WORLD_IDS.workspaceA).length;
  const seen = world.sandbox.received.length;
  const fn = where === 'state' ? 'svc_provision' : 'svc_bot_attach';
  if (fault === 'unreachable' && where === 'state') await world.proxy.setUnreachable(true);
  else world.proxy.set(fn, fault === 'unreachable' ? { kind: 'reset' } : fault);
  const callers: Promise<void>[] = [];
  const until = Date.now() + ctx.options.durationMs;
  do {
    callers.push((async () => {
      const jwt = await world.token(world.users.c);
      count(ctx.answers, await provision(gateway.url, jwt));
    })());
    await sleep(ARRIVAL_MS);
  } while (Date.now() < until);
  await Promise.all(callers);
  const created = upstreamCalls(ctx, 'SvcProvisionBot', seen);
  const deleted = upstreamCalls(ctx, 'SvcDeleteBot', seen);
  if (where === 'state' && created > 0) ctx.problem(`${created} bots created upstream`);
  if (where === 'attach' && (created === 0 || deleted !== created)) {
    ctx.problem(`${created} bots created upstream, ${deleted} deleted again`);
  }
  world.proxy.clear();
  await world.proxy.setUnreachable(false);
  await ctx.refreshOthers();
  count(ctx.answers, await provision(gateway.url, await world.token(world.users.c)));
  const botsAfter = world.sandbox.world.botsOf(WORLD_IDS.workspaceA).length;
  if (botsAfter !== botsBefore + 1) {
    ctx.problem(`the upstream workspace went from ${botsBefore} to ${botsAfter} bots`);
  }
}

function provisionFault(how: string, where: Where, fault: Behaviour | 'unreachable'): Fault {
  const name = `backend: provisioning ${how}`;
  return {
    name,
    hosts: ['deno', 'node'],
    run: (host, options) =>
      runBackendFault(
        {
          name,
          expected: [REFUSED, PROVISIONED],
          required: [REFUSED, PROVISIONED],
          drive: (ctx) => drive(ctx, where, fault),
        },
        host,
        options,
      ),
  };
}

/** Provisioning's faults. */
export const provisionFaults: Fault[] = [
  provisionFault('finds the backend unreachable', 'state', 'unreachable'),
  provisionFault('state times out (backend stalls)', 'state', { kind: 'stall' }),
  provisionFault('state answers 500', 'state', { kind: 'status', status: 500 }),
  provisionFault('state answers an empty object', 'state', { kind: 'body', body: '{}' }),
  provisionFault('state answers null', 'state', { kind: 'body', body: 'null' }),
  provisionFault('attach cut after the upstream create', 'attach', 'unreachable'),
  provisionFault('attach answers 500', 'attach', { kind: 'status', status: 500 }),
];
