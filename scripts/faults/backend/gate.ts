/**
 * The session gate's lookup (svc_my_bot_ids) under a backend fault: SPEC "Authentication" 2
 * ("unreachable, non-200 or non-array answer: 503 ProxyAuthUnavailable") and the gate row of
 * "Gate and fences". Sessions the gate has not cached (a fresh token of owner B, naming bot 3)
 * get 503 ProxyAuthUnavailable and nothing of theirs reaches the upstream (or, when the backend
 * is slow but inside the 5 s deadline, are admitted); the owner whose session is cached keeps
 * being served; once the backend heals, a fresh session is admitted.
 */
import { WORLD_IDS } from '../../sandbox/mod.ts';
import type { Fault } from '../fault.ts';
import type { Behaviour } from './fault_proxy.ts';
import { type DriveContext, runBackendFault, sleep } from './run.ts';
import { BOT_QUERY, count, graphql } from './traffic.ts';

const RPC = 'svc_my_bot_ids';
const REFUSED = '503 ProxyAuthUnavailable';
const RECOVERED = 'recovered ok';
const ADMITTED = 'admitted ok';
/** A backend this slow is still inside the gate's 5 s deadline (ms). */
const INSIDE_DEADLINE_MS = 3_500;
/** One fault phase lasts at most this long (ms): well inside the 30 s gate cache of the others. */
const PHASE_MS = 6_000;
/** A fresh caller arrives this often during a phase (ms). */
const ARRIVAL_MS = 300;

/** How the backend misbehaves for the gate. */
type GateFaultKind =
  | { kind: 'unreachable' }
  | { kind: 'behaviour'; behaviour: Behaviour };

/** Whether a sandbox request was one naming bot 3 (the fault's callers). */
function namesBot3(json: unknown): boolean {
  return JSON.stringify(json ?? null).includes(WORLD_IDS.bot3);
}

async function onePhase(
  ctx: DriveContext,
  fault: GateFaultKind,
  phaseMs: number,
  admitted: boolean,
) {
  const { world, gateway } = ctx;
  await ctx.refreshOthers();
  const seen = world.sandbox.received.length;
  if (fault.kind === 'unreachable') await world.proxy.setUnreachable(true);
  else world.proxy.set(RPC, fault.behaviour);
  const callers: Promise<void>[] = [];
  const until = Date.now() + phaseMs;
  do {
    callers.push((async () => {
      const jwt = await world.token(world.users.b);
      const label = await graphql(gateway.url, jwt, BOT_QUERY, { botID: WORLD_IDS.bot3 });
      count(ctx.answers, label === 'ok' ? ADMITTED : label);
    })());
    await sleep(ARRIVAL_MS);
  } while (Date.now() < until);
  await Promise.all(callers);
  const reached = world.sandbox.received.slice(seen).filter((r) => namesBot3(r.json));
  if (!admitted && reached.length > 0) {
    ctx.problem(`${reached.length} refused requests reached the upstream`);
  }
  world.proxy.clear();
  await world.proxy.setUnreachable(false);
  const jwt = await world.token(world.users.b);
  const label = await graphql(gateway.url, jwt, BOT_QUERY, { botID: WORLD_IDS.bot3 });
  count(ctx.answers, label === 'ok' ? RECOVERED : `recovered ${label}`);
}

/**
 * A gate fault. `admitted`: the backend still answers within the gate's deadline, so the fresh
 * sessions are admitted ('admitted ok') instead of refused.
 */
function gateFault(how: string, fault: GateFaultKind, admitted = false): Fault {
  const name = `backend: gate lookups ${how}`;
  const during = admitted ? ADMITTED : REFUSED;
  return {
    name,
    hosts: ['deno', 'node'],
    run: (host, options) =>
      runBackendFault(
        {
          name,
          expected: [during, RECOVERED],
          required: [during, RECOVERED],
          async drive(ctx) {
            const until = Date.now() + options.durationMs;
            do {
              const phaseMs = Math.min(PHASE_MS, Math.max(0, until - Date.now()));
              await onePhase(ctx, fault, phaseMs, admitted);
            } while (Date.now() < until);
          },
        },
        host,
        options,
      ),
  };
}

/**
 * The gate's faults: unreachable, past its 5 s deadline, slow but inside it, 500, and three
 * wrong shapes.
 */
export const gateFaults: Fault[] = [
  gateFault('find the backend unreachable', { kind: 'unreachable' }),
  gateFault('time out (backend stalls)', { kind: 'behaviour', behaviour: { kind: 'stall' } }),
  gateFault('answer slowly, inside the deadline', {
    kind: 'behaviour',
    behaviour: { kind: 'slow', ms: INSIDE_DEADLINE_MS },
  }, true),
  gateFault('answer 500', { kind: 'behaviour', behaviour: { kind: 'status', status: 500 } }),
  gateFault('answer an object, not an array', {
    kind: 'behaviour',
    behaviour: { kind: 'body', body: '{"bots":["b00000000000000000000003"]}' },
  }),
  gateFault('answer an array of numbers', {
    kind: 'behaviour',
    behaviour: { kind: 'body', body: '[1,2,3]' },
  }),
  gateFault('answer a body that is not JSON', {
    kind: 'behaviour',
    behaviour: { kind: 'body', body: '<html>bad gateway</html>' },
  }),
];
