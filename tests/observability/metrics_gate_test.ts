/**
 * The metrics' gate, tenant and relay series (docs/operations.md "Metrics") on a gate-on gateway
 * over a real PostgreSQL, both hosts: a first request of a session is a miss (one backend
 * lookup), the next a cache hit; a relayed subscription counts its next frames; the tenant
 * buckets are tracked. No session id, token or bot id in the text.
 */
import assert from 'node:assert/strict';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { postGraphql } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { BOT_QUERY, withGateOn } from '../gate/helpers.ts';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { sample, subscribeToEnd } from './helpers.ts';

Deno.test('metrics of the gate, the tenants and the relay', async (t) => {
  const cluster = await startPostgres();
  try {
    for (const kind of HOSTS) {
      await t.step(kind, async () => {
        await withGateOn(kind, cluster, { env: { METRICS: '1' } }, async (s) => {
          for (let i = 0; i < 2; i++) {
            const res = await postGraphql(
              s.gateway.url,
              { query: BOT_QUERY, variables: { botID: WORLD_IDS.bot1 } },
              s.bearer(s.users.a.jwt),
            );
            await res.body?.cancel();
            assert.equal(res.status, 200);
          }
          assert.equal(
            await subscribeToEnd(s.gateway.url, { authToken: `Bearer ${s.users.a.jwt}` }),
            3,
          );
          // The relay counts the socket until its close handshake ends, just after dispose.
          let text = '';
          for (let i = 0; i < 100; i++) {
            text = await (await fetch(`${s.gateway.url}/svc/metrics`)).text();
            if (sample(text, 'svc_relay_sockets') === 0) break;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          assert.equal(sample(text, 'svc_gate_lookups_total{result="miss"}'), 1, text);
          assert.ok((sample(text, 'svc_gate_lookups_total{result="hit"}') ?? 0) >= 1);
          assert.equal(sample(text, 'svc_relay_frames_total'), 3);
          assert.equal(sample(text, 'svc_tenants_tracked'), 1);
          assert.equal(sample(text, 'svc_relay_sockets'), 0);
          for (const secret of [s.users.a.jwt, s.users.a.id, WORLD_IDS.bot1]) {
            assert.ok(!text.includes(secret), 'no session, account or bot id');
          }
        });
      });
    }
  } finally {
    await cluster.stop();
  }
});
