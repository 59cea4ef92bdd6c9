/**
 * /svc/auth at its edges (SPEC "Ceilings": JSON route body 2 MiB, past it 413 RequestTooLarge;
 * "Gate and fences": ProxyInternalError, the backstop inside the bot routes):
 *
 * - provision, POST bots, PATCH bots/<id> and recovery-link read a body of exactly 2 MiB and
 *   answer it as they answer a small one; one byte more is 413 RequestTooLarge before anything
 *   reaches the database or the upstream;
 * - a failure thrown inside a route (here: the log sink fails while the recovery link is
 *   written) is 500 ProxyInternalError, the route group's own backstop, not the proxy's
 *   ProxyHandlerFailed. The log sink is a function, so this runs on the Deno host in process.
 *
 * One PostgreSQL cluster for the file; the 2 MiB figure is written here from the spec.
 */
import assert from 'node:assert/strict';
import { createSvcProxy } from '../../mod.ts';
import { serveDeno } from '../../hosts/deno/server.ts';
import { denoOutbound } from '../../hosts/deno/outbound.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { assertNothingReached } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { assertCode, authEnv, type AuthSetup, withAuth } from './helpers.ts';

const CEILING = 2 * 1024 * 1024;
const enc = new TextEncoder();

/** `head` + 'x' padding + `tail`, exactly `total` bytes (ASCII). */
function padded(head: string, tail: string, total: number): string {
  const text = head + 'x'.repeat(total - head.length - tail.length) + tail;
  assert.equal(enc.encode(text).byteLength, total);
  return text;
}

/** The shared limits' background sync: its calls run whatever the test does. */
const BACKGROUND = 'svc_limits_sync';

/**
 * `act`, asserting nothing reached the upstream meanwhile, and of the database only the
 * functions in `expected` (the recovery route checks its caller before it reads the body).
 */
async function reachesNothing<T>(
  s: AuthSetup,
  act: () => Promise<T>,
  expected: string[] = [],
): Promise<T> {
  const before = new Map(s.backend.rest.calls);
  const result = await assertNothingReached(s.sandbox, act);
  const made = [...s.backend.rest.calls]
    .filter(([fn, n]) => fn !== BACKGROUND && n !== (before.get(fn) ?? 0))
    .map(([fn]) => fn);
  assert.deepEqual(made, expected, 'database calls');
  return result;
}

async function jsonRouteEdges(s: AuthSetup) {
  const owner = await s.signUp('edge-owner@example.test');
  const named = (name: string) => (total: number) =>
    padded(`{"name":"${name}","pad":"`, '"}', total);

  const provision = await s.api('POST', '/provision', owner, named('Edge')(CEILING));
  assert.equal(provision.status, 200, `2 MiB exactly is read: ${provision.text.slice(0, 300)}`);
  assert.equal(provision.json.created.name, 'Edge');
  await reachesNothing(s, async () => {
    const over = await s.api('POST', '/provision', owner, named('Edge')(CEILING + 1));
    assertCode(over, 413, 'RequestTooLarge');
  });

  const made = await s.api('POST', '/bots', owner, named('Second')(CEILING));
  assert.equal(made.status, 201, made.text.slice(0, 300));
  assert.equal(made.json.bot.name, 'Second');
  await reachesNothing(s, async () => {
    assertCode(
      await s.api('POST', '/bots', owner, named('Third')(CEILING + 1)),
      413,
      'RequestTooLarge',
    );
  });

  const path = `/bots/${made.json.bot.id}`;
  const renamed = await s.api('PATCH', path, owner, named('Renamed')(CEILING));
  assert.equal(renamed.status, 200, renamed.text.slice(0, 300));
  assert.equal(renamed.json.bot.name, 'Renamed');
  await reachesNothing(s, async () => {
    assertCode(
      await s.api('PATCH', path, owner, named('Again')(CEILING + 1)),
      413,
      'RequestTooLarge',
    );
  });

  // recovery-link takes {email} only: the padding is the address's local part
  const email = (total: number) => padded('{"email":"', '@example.test"}', total);
  const small = await s.api('POST', '/recovery-link', owner, { email: 'nobody@example.test' });
  const smallCode = small.json?.errors?.[0]?.extensions?.code;
  assert.ok(smallCode, small.text);
  const at = await s.api('POST', '/recovery-link', owner, email(CEILING));
  assertCode(at, small.status, smallCode); // read whole and judged like the small one
  await reachesNothing(s, async () => {
    const over = await s.api('POST', '/recovery-link', owner, email(CEILING + 1));
    assertCode(over, 413, 'RequestTooLarge');
  }, ['svc_recovery_caller_check']);
}

/** The recovery link's log line throws: the route's backstop answers 500 ProxyInternalError. */
async function backstop(s: AuthSetup) {
  const lines: string[] = [];
  const proxy = createSvcProxy(
    {
      loopbackOnly: true,
      ...denoOutbound(),
      log: (line) => {
        if (line.includes('recovery link for')) throw new Error('the log sink failed');
        lines.push(line);
      },
    },
    authEnv(s.sandbox, s.backend, s.front),
  );
  const host = await serveDeno(proxy, '127.0.0.1', 0);
  try {
    const owner = await s.signUp('backstop-owner@example.test');
    const home = (await s.api('POST', '/provision', owner, {}, s.gateway)).json.workspace.id;
    const member = await s.signUp('backstop-member@example.test');
    await s.backend.seed.addMember(home, member.id, 'member');
    const gateway = { kind: 'deno' as const, url: host.url, lines, stop: () => host.shutdown() };
    const reply = await s.api('POST', '/recovery-link', owner, { email: member.email }, gateway);
    const message = assertCode(reply, 500, 'ProxyInternalError');
    assert.equal(message, 'The auth route failed');
    assert.ok(!reply.text.includes(s.front.links.at(-1) ?? '\u0000'), 'the link is not answered');
  } finally {
    await host.shutdown();
  }
}

Deno.test('auth routes at their edges', async (t) => {
  const cluster = await startPostgres();
  try {
    for (const kind of HOSTS) {
      await withAuth(cluster, kind, async (s) => {
        await t.step(
          `[${kind}] JSON bodies: 2 MiB exactly read, one byte more 413`,
          () => jsonRouteEdges(s),
        );
        if (kind === 'deno') {
          await t.step('[deno] a route that throws is 500 ProxyInternalError', () => backstop(s));
        }
        s.assertNoSecretInAnswers();
      });
    }
  } finally {
    await cluster.stop();
  }
});
