/**
 * `ALLOWED_ORIGINS='*'` behind the session gate, on both hosts (SPEC "Options" allowedOrigins:
 * "'*' is any origin with credentials"; "Checks before any route" 2, 3 and 6): any origin passes
 * the origin check and is answered with its own origin and credentials (never a literal `*`),
 * preflights and refusals included; the admin prefix stays same-origin only; the startup line
 * warns. Real PostgreSQL and JWTs through the gate helpers (tests/gate/helpers.ts).
 */
import assert from 'node:assert/strict';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { BOT_QUERY, withGateOn } from '../gate/helpers.ts';
import { assertNothingReached, assertRefusal, forwarded } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';

const anywhere = 'https://anywhere.example';
const body = JSON.stringify({ query: BOT_QUERY, variables: { botID: WORLD_IDS.bot1 } });

function assertCors(res: Response, origin: string): void {
  assert.equal(res.headers.get('access-control-allow-origin'), origin);
  assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
  assert.equal(res.headers.get('vary'), 'origin');
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] ALLOWED_ORIGINS='*' behind the gate: any origin, with credentials`, async () => {
    const cluster = await startPostgres();
    try {
      const env = { ALLOWED_ORIGINS: '*', ADMIN_PASSWORD: 'a-long-enough-admin-password' };
      await withGateOn(kind, cluster, { env }, async ({ sandbox, gateway, users, bearer }) => {
        assert.ok(
          gateway.lines.some((l) => l.includes("WARNING: allowed origins contain '*'")),
          gateway.lines.join('\n'),
        );
        const before = forwarded(sandbox).length;
        const res = await fetch(`${gateway.url}/svc/graphql`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            origin: anywhere,
            'sec-fetch-site': 'cross-site',
            ...bearer(users.a.jwt),
          },
          body,
        });
        const json = await res.json();
        assert.equal(res.status, 200, JSON.stringify(json));
        assert.equal(json.data.bot.id, WORLD_IDS.bot1);
        assertCors(res, anywhere);
        assert.equal(forwarded(sandbox).length, before + 1, 'the request reached the upstream');

        const preflight = await fetch(`${gateway.url}/svc/graphql`, {
          method: 'OPTIONS',
          headers: { origin: 'http://other.example:5173' },
        });
        assert.equal(preflight.status, 204);
        assertCors(preflight, 'http://other.example:5173');
        await preflight.body?.cancel();

        await assertNothingReached(sandbox, async () => {
          const unsigned = await fetch(`${gateway.url}/svc/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', origin: anywhere },
            body,
          });
          assertCors(unsigned, anywhere);
          await assertRefusal(unsigned, 401, 'AuthSessionRequired');
          // the admin prefix is same-origin only whatever allowedOrigins says (step 6)
          const admin = await fetch(`${gateway.url}/svc/admin/session`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', origin: anywhere },
            body: JSON.stringify({ password: 'a-long-enough-admin-password' }),
          });
          assert.equal(admin.headers.get('access-control-allow-origin'), null);
          await assertRefusal(admin, 403, 'ProxyOriginForbidden');
        });
      });
    } finally {
      await cluster.stop();
    }
  });
}
