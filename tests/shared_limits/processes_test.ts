/**
 * Tenant limits and revocations across three real gateway processes on one backend
 * (docs/operations.md "Limits across processes"): the Deno host in this process and two Node hosts
 * (the built npm package) as child processes, over one real PostgreSQL, the PostgREST-compatible
 * endpoint and the sandbox upstream.
 *
 * - 1,800 requests of one tenant spread over the three: at most 600 + the refill of the elapsed
 *   time + the stated overshoot (3 processes x a 20-token lease) admitted, at least 600 - 60;
 *   every refusal 429 TenantBusy retry-after 5 and nothing refused reached the upstream; far
 *   fewer backend calls than requests (the figure is printed per 10k requests).
 * - 24 sockets opened round-robin: exactly 8 admitted, the others closed 4429 and never relayed;
 *   killing (SIGKILL) a process holding some gives its share back within the lease (5 s) and a
 *   sync (1 s).
 * - A revoke answered by one process closes the bot's sockets on the others 4401 and refuses the
 *   bot on every process after that.
 * - The no-bot bucket (a tenth) is shared likewise; with the backend unreachable traffic keeps
 *   flowing under per-process limits (one log line per process), and the shared mode comes back
 *   when the backend answers, debiting what was admitted meanwhile.
 */
import assert from 'node:assert/strict';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { assertNothingReached, assertRefusal, forwarded } from '../helpers/assertions.ts';
import { admin, FAST, PASSWORD, unlock } from '../admin/helpers.ts';
import { BOT_QUERY } from '../gate/helpers.ts';
import { NO_BOT_TENANT } from '../../src/admission/tenants.ts';
import {
  assertSocketsAdmitted,
  burst,
  type Deployment,
  eventually,
  startDeployment,
} from './helpers.ts';

const ME = { query: '{ currentUser { id } }' };
const LEASE = 20; // DEFAULTS.sharedLeaseShare of 600
const PROCESSES = 3;

/** A raw graphql-transport-ws socket sending connection_init with `authToken`. */
class RawSocket {
  readonly ws: WebSocket;
  readonly outcome: Promise<'ack' | number>;
  readonly closed: Promise<{ code: number; at: number }>;

  constructor(url: string, authToken: string) {
    this.ws = new WebSocket(`${url.replace('http', 'ws')}/svc/graphql`, 'graphql-transport-ws');
    const outcome = Promise.withResolvers<'ack' | number>();
    this.outcome = outcome.promise;
    this.closed = new Promise((resolve) => {
      this.ws.onclose = (e) => {
        outcome.resolve(e.code);
        resolve({ code: e.code, at: performance.now() });
      };
    });
    this.ws.onopen = () =>
      this.ws.send(JSON.stringify({ type: 'connection_init', payload: { authToken } }));
    this.ws.onmessage = (e) => {
      if (JSON.parse(String(e.data)).type === 'connection_ack') outcome.resolve('ack');
    };
  }

  async close(): Promise<void> {
    if (this.ws.readyState !== WebSocket.CLOSED) this.ws.close(1000);
    await this.closed;
  }
}

/** Fallback lines printed so far by every process. */
function fallbacks(gateways: Deployment['gateways']): number {
  return gateways.flatMap((g) => g.lines).filter((l) =>
    l.includes('per-process limits until it does')
  ).length;
}

/** Live sockets counted in the backend's lease table, every tenant. */
async function liveLeases(backend: Deployment['backend']): Promise<number> {
  const rows = await backend.seed.query<{ n: number }>(
    'select coalesce(sum(sockets), 0)::int as n from public.svc_socket_leases where expires_at > now()',
  );
  return rows.rows[0].n;
}

/** The tokens of bucket `key` now (its row; refill not applied). */
async function bucketTokens(backend: Deployment['backend'], key: string): Promise<number> {
  const rows = await backend.seed.query<{ tokens: number }>(
    'select tokens from public.svc_tenant_buckets where tenant_key = $1',
    [key],
  );
  assert.equal(rows.rows.length, 1, `a bucket row for ${key}`);
  return rows.rows[0].tokens;
}

function bearer(jwt: string) {
  return { authorization: `Bearer ${jwt}` };
}

Deno.test('shared limits across three gateway processes (Deno + 2 Node)', async (t) => {
  const cluster = await startPostgres();
  let d: Deployment | null = null;
  const sockets: RawSocket[] = [];
  /** The Node gateway (1 or 2) left running once the other was killed. */
  let survivor = 2;
  try {
    d = await startDeployment(cluster, 2, { env: { ADMIN_PASSWORD: PASSWORD }, options: FAST });
    const { backend, sandbox, users, gateways, calls } = d;
    const urls = gateways.map((g) => g.url);

    await t.step('the startup line says the limits are shared', () => {
      for (const g of gateways) {
        assert.ok(g.lines.some((l) => l.includes('tenant limits shared (backend)')), g.kind);
      }
    });

    await t.step('1,800 requests of one tenant over three processes', async () => {
      const reachedBefore = forwarded(sandbox).length;
      const takesBefore = calls('svc_tenant_take');
      const started = performance.now();
      const tally = await burst(urls, 1800, ME, bearer(users.a.jwt));
      const elapsedS = (performance.now() - started) / 1000;
      const takes = calls('svc_tenant_take') - takesBefore;
      const refill = Math.ceil(elapsedS * 10);
      console.log(
        `1800 requests in ${elapsedS.toFixed(1)} s: ${tally.admitted} admitted, ${tally.busy} ` +
          `TenantBusy; svc_tenant_take calls ${takes} (${
            Math.round((takes * 10_000) / 1800)
          } per 10k requests)`,
      );
      assert.deepEqual(tally.other, {});
      assert.equal(tally.admitted + tally.busy, 1800);
      assert.ok(tally.admitted <= 600 + refill + PROCESSES * LEASE, `${tally.admitted} admitted`);
      assert.ok(tally.admitted >= 600 - PROCESSES * LEASE, `${tally.admitted} admitted`);
      assert.equal(forwarded(sandbox).length - reachedBefore, tally.admitted, 'refused ones');
      assert.ok(takes * 10 < 1800, `${takes} lease calls for 1800 requests`);
    });

    await t.step(
      '24 sockets round-robin: 8 admitted; a killed process gives its share back',
      async () => {
        const token = `Bearer ${users.b.jwt}`;
        let upstreamBefore = 0;
        let opened: RawSocket[] = [];
        let outcomes: ('ack' | number)[] = [];
        for (let round = 1;; round++) {
          upstreamBefore = sandbox.sockets.length;
          const missedBefore = fallbacks(gateways);
          opened = Array.from({ length: 24 }, (_, i) => new RawSocket(urls[i % 3], token));
          sockets.push(...opened);
          outcomes = await Promise.all(opened.map((s) => s.outcome));
          const acked = outcomes.filter((o) => o === 'ack').length;
          const lines = gateways.flatMap((g) => g.lines);
          assertSocketsAdmitted(acked, 8, 3, lines, `outcomes ${outcomes.join(',')}`);
          if (acked === 8 && fallbacks(gateways) === missedBefore) break;
          // a missed deadline (a loaded machine): the share-back cannot be measured on this
          // burst; close it, wait for the shared limits and an empty lease table, burst again
          assert.ok(round < 3, `a deadline missed on each of ${round} bursts: ${acked} admitted`);
          for (const s of opened) await s.close();
          assert.ok(await eventually(async () => await liveLeases(backend) === 0, 15_000));
        }
        assert.deepEqual([...new Set(outcomes.filter((o) => o !== 'ack'))], [4429]);
        assert.ok(sandbox.sockets.length - upstreamBefore <= 8, 'a refused socket was relayed');
        // kill the Node process holding the most admitted sockets
        const held = [1, 2].map((g) =>
          opened.filter((_, i) => i % 3 === g && outcomes[i] === 'ack')
        );
        const victim = held[0].length >= held[1].length ? 1 : 2;
        const lost = held[victim - 1].length;
        assert.ok(lost > 0, 'the victim holds sockets');
        const killedAt = performance.now();
        await gateways[victim].kill();
        survivor = victim === 1 ? 2 : 1;
        const survivors = [urls[0], urls[survivor]];
        let regained = 0;
        const back = await eventually(async () => {
          const s = new RawSocket(survivors[regained % 2], token);
          sockets.push(s);
          if (await s.outcome === 'ack') regained++;
          return regained === lost;
        }, 15_000);
        console.log(
          `killed a process holding ${lost} sockets: its share came back after ${
            ((performance.now() - killedAt) / 1000).toFixed(1)
          } s (lease 5 s + sync 1 s)`,
        );
        assert.ok(back, `regained ${regained} of ${lost}`);
        const extra = new RawSocket(survivors[0], token);
        sockets.push(extra);
        assert.equal(await extra.outcome, 4429, 'still 8 in all');
      },
    );

    await t.step('a revoke answered by one process reaches the sockets of the others', async () => {
      const { seed } = backend;
      const m = await seed.createUser('m@example.test');
      const rows = await seed.query<{ id: string; workspace_id: string }>(
        'select id, workspace_id from public.svc_bots where upstream_bot_id = $1',
        [WORLD_IDS.bot1],
      );
      await seed.addMember(rows.rows[0].workspace_id, m, 'member');
      await seed.grantBot(rows.rows[0].id, m);
      const jwt = await backend.rest.mintUserToken(m);
      const live = [urls[0], urls[survivor]];
      const held = live.map((url) => new RawSocket(url, `Bearer ${jwt}`));
      sockets.push(...held);
      for (const s of held) assert.equal(await s.outcome, 'ack');
      const query = { query: BOT_QUERY, variables: { botID: WORLD_IDS.bot1 } };
      for (const url of live) {
        const res = await fetch(`${url}/svc/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...bearer(jwt) },
          body: JSON.stringify(query),
        });
        assert.equal(res.status, 200, await res.text());
      }
      const cookie = await unlock(live[1]);
      const revokedAt = performance.now();
      const res = await admin(
        live[1],
        `/grants?botId=${WORLD_IDS.bot1}&userId=${m}`,
        { method: 'DELETE', cookie },
      );
      const answer = await res.json();
      assert.equal(res.status, 200, JSON.stringify(answer));
      assert.equal(answer.socketsClosed, 1, 'the answering process closed its own at once');
      const other = await Promise.race([
        held[0].closed,
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 5_000)),
      ]);
      assert.ok(other !== null, 'the other process closed its socket');
      assert.equal(other.code, 4401);
      console.log(
        `revoke reached the other process's socket in ${
          ((other.at - revokedAt) / 1000).toFixed(2)
        } s`,
      );
      await assertNothingReached(sandbox, async () => {
        for (const url of live) {
          await assertRefusal(
            await fetch(`${url}/svc/graphql`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...bearer(jwt) },
              body: JSON.stringify(query),
            }),
            403,
            'AuthTenantForbidden',
          );
        }
      });
    });

    await t.step(
      'the no-bot bucket is shared at a tenth; an outage falls back and reconciles',
      async () => {
        const live = [urls[0], urls[survivor]];
        const shared = await burst(live, 150, ME, bearer(users.c.jwt), 10);
        assert.deepEqual(shared.other, {});
        assert.ok(
          shared.admitted >= 60 - 2 * 2 && shared.admitted <= 60 + 2 * 2 + 5,
          `${shared.admitted}`,
        );
        const fallbackLines = (g: { lines: string[] }) =>
          g.lines.filter((l) => l.includes('per-process limits until it does')).length;
        const live2 = [gateways[0], gateways[survivor]];
        const before = live2.map(fallbackLines);
        // the outage begins with the bucket full (as a minute without calls leaves it)
        await backend.seed.query(
          'update public.svc_tenant_buckets set tokens = 60, refilled_at = now() where tenant_key = $1',
          [NO_BOT_TENANT],
        );
        await backend.rest.switches.setUnreachable(true);
        // each process notices with its next call (its sync, within a second)
        assert.ok(
          await eventually(() => live2.every((g, i) => fallbackLines(g) > before[i]), 5_000),
        );
        const down = await burst(live, 150, ME, bearer(users.c.jwt), 10);
        assert.deepEqual(down.other, {});
        assert.ok(down.admitted > 60, `per-process limits: ${down.admitted} admitted`);
        assert.ok(down.admitted <= 2 * 60 + 5, `per-process limits: ${down.admitted} admitted`);
        assert.deepEqual(live2.map(fallbackLines), before.map((n) => n + 1), 'one line each');
        await backend.rest.switches.setUnreachable(false);
        assert.ok(
          await eventually(
            () => live2.every((g) => g.lines.some((l) => l.includes('answers again'))),
            5_000,
          ),
          'the shared mode came back',
        );
        // the bucket was full when the outage began: only the debit of what the processes
        // admitted on their own (over 60), sent as soon as the backend answers again, empties it
        // (a refill of 1 a second follows)
        assert.ok(
          await eventually(async () => (await bucketTokens(backend, NO_BOT_TENANT)) < 5, 5_000),
          `the no-bot bucket holds ${await bucketTokens(
            backend,
            NO_BOT_TENANT,
          )} tokens after the reconciliation`,
        );
        const after = await burst(live, 40, ME, bearer(users.c.jwt), 4);
        assert.ok(after.admitted <= 10, `reconciled: ${after.admitted} admitted after the outage`);
      },
    );
  } finally {
    for (const s of sockets) await s.close().catch(() => {});
    await d?.stop();
    await cluster.stop();
  }
});
