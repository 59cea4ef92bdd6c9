/**
 * The admin password throttle's shared row (svc_admin_throttle_take) under a backend fault:
 * SPEC "Authentication" 4 and src/routes/admin/throttle.ts ("A backend that does not answer
 * leaves memory alone in charge: the operator is not locked out by a database outage").
 *
 * Each caller is its own client (TRUST_FORWARDED_FOR=1, its own x-forwarded-for): a wrong
 * password gets 401 AdminBadPassword, the right one 200 (unlocked), and a client trying six
 * wrong passwords gets five 401 and then 429 AdminThrottled from memory alone. After healing,
 * the shared row works again: a client's right password unlocks, and its row is cleared.
 */
import type { Fault } from '../fault.ts';
import type { Behaviour } from './fault_proxy.ts';
import { type DriveContext, runBackendFault } from './run.ts';
import { callerFetch, count, labelOf } from './traffic.ts';
import { ADMIN_PASSWORD } from './world.ts';

const TAKE = 'svc_admin_throttle_take';
const UNLOCKED = 'unlocked';
const BAD = '401 AdminBadPassword';
const THROTTLED = '429 AdminThrottled';
const RECOVERED = 'recovered unlocked';
/** Wrong attempts of the client that must be throttled (the rule's five free ones, one more). */
const PERSISTENT_ATTEMPTS = 6;

let clients = 0;

/** One POST /svc/admin/session as client `key`; its label ('unlocked' for a 200). */
async function attempt(gateway: string, key: string, password: string): Promise<string> {
  const response = await callerFetch(`${gateway}/svc/admin/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': key },
    body: JSON.stringify({ password }),
  });
  const label = await labelOf(response);
  return label === 'ok' ? UNLOCKED : label;
}

function clientKey(): string {
  clients++;
  return `10.${Math.floor(clients / 62500) % 250}.${Math.floor(clients / 250) % 250}.${
    clients % 250
  }`;
}

async function phase(ctx: DriveContext): Promise<void> {
  const url = ctx.gateway.url;
  const persistent = clientKey();
  const persistentLabels: string[] = [];
  await Promise.all([
    (async () => count(ctx.answers, await attempt(url, clientKey(), 'not the password')))(),
    (async () => count(ctx.answers, await attempt(url, clientKey(), ADMIN_PASSWORD)))(),
    // At once: memory counts each attempt as it arrives, before the shared row is asked.
    ...Array.from({ length: PERSISTENT_ATTEMPTS }, async (_, i) => {
      persistentLabels.push(await attempt(url, persistent, `wrong ${i}`));
    }),
  ]);
  for (const label of persistentLabels) count(ctx.answers, label);
  const wanted = [...Array(PERSISTENT_ATTEMPTS - 1).fill(BAD), THROTTLED].sort().join(', ');
  if (persistentLabels.sort().join(', ') !== wanted) {
    ctx.problem(`six wrong passwords of one client answered ${persistentLabels.join(', ')}`);
  }
}

async function drive(ctx: DriveContext, fault: Behaviour | 'unreachable'): Promise<void> {
  const { world } = ctx;
  const until = Date.now() + ctx.options.durationMs;
  do {
    if (fault === 'unreachable') await world.proxy.setUnreachable(true);
    else world.proxy.set(TAKE, fault);
    await phase(ctx);
    world.proxy.clear();
    await world.proxy.setUnreachable(false);
    await ctx.refreshOthers();
  } while (Date.now() < until);
  const key = clientKey();
  const label = await attempt(ctx.gateway.url, key, ADMIN_PASSWORD);
  count(ctx.answers, label === UNLOCKED ? RECOVERED : `recovered ${label}`);
  const rows = await world.backend.seed.query<{ n: number }>(
    'select count(*)::int as n from public.svc_admin_throttle where client_key = $1',
    [key],
  );
  if (rows.rows[0].n !== 0) ctx.problem('a right password left its shared throttle row behind');
}

function throttleFault(how: string, fault: Behaviour | 'unreachable'): Fault {
  const name = `backend: admin throttle row ${how}`;
  return {
    name,
    hosts: ['deno', 'node'],
    run: (host, options) =>
      runBackendFault(
        {
          name,
          expected: [UNLOCKED, BAD, THROTTLED, RECOVERED],
          required: [UNLOCKED, BAD, THROTTLED, RECOVERED],
          drive: (ctx) => drive(ctx, fault),
        },
        host,
        options,
      ),
  };
}

/** The throttle row's faults: unreachable, past its 5 s deadline, 500, three wrong shapes. */
export const throttleFaults: Fault[] = [
  throttleFault('backend unreachable', 'unreachable'),
  throttleFault('takes time out (backend stalls)', { kind: 'stall' }),
  throttleFault('takes answer 500', { kind: 'status', status: 500 }),
  throttleFault('takes answer a string', { kind: 'body', body: '"wait a while"' }),
  throttleFault('takes answer a negative wait', { kind: 'body', body: '-30000' }),
  throttleFault('takes answer a wait past the cap', { kind: 'body', body: '1000000000000' }),
];
