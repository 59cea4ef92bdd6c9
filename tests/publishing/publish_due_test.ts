/**
 * The scheduler's callback over real HTTP on both hosts (SPEC "Publish queue", "Authentication"
 * 5): a post made due is claimed by the job's own function (svc_publish_tick), the pg_net
 * stand-in records the call, and the test makes that call to the gateway, which publishes
 * through the sandbox upstream's publish field of the post's kind and records the outcome.
 * Covers the refusals, each kind's input, the claim race, failed / refused / slow publishes, a
 * missing master token, an unset secret, and that no secret shows in any answer or log line.
 */
import assert from 'node:assert/strict';
import { assertNothingReached, assertRefusal, forwarded } from '../helpers/assertions.ts';
import { type Gateway, HOSTS } from '../helpers/gateway.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { unlock } from '../admin/helpers.ts';
import { upstreamError } from '../../scripts/sandbox/mod.ts';
import { BOT, gatewayOf, pub, PUBLIC_URL, SECRET, startWorld, type World } from './helpers.ts';
import { type RecordedPost, replay, takeRecordedPosts } from './pg_net_standin.ts';

const BYPASS = 'edge-bypass-secret-0123456789';
const IMG = { type: 'image', url: 'https://cdn.example.test/a.jpg' };
const VID = { type: 'video', url: 'https://cdn.example.test/a.mp4' };

/** Creates a post through the route, makes it due, runs one scheduler tick; its recorded call. */
async function dueCall(
  w: World,
  gw: Gateway,
  post: Record<string, unknown>,
): Promise<RecordedPost> {
  const res = await pub(gw.url, `/posts?botID=${BOT}`, {
    method: 'POST',
    bearer: w.owner,
    body: { ...post, scheduledAt: '2030-01-01T00:00:00Z' },
  });
  assert.equal(res.status, 201, await res.clone().text());
  const { id } = await res.json();
  await w.backend.seed.query(
    `update public.svc_posts set scheduled_at = now() - interval '1 minute' where id = $1`,
    [id],
  );
  const tick = await w.backend.seed.query('select public.svc_publish_tick() as n');
  assert.equal(tick.rows[0].n, 1);
  const calls = await takeRecordedPosts(w.backend.seed);
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0].body, { id });
  return calls[0];
}

/** SHA-256 hex of `text`: what an earlier registration kept (and sent) instead of the secret. */
async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

function publishes(w: World) {
  return forwarded(w.sandbox).filter((r) => r.search === '?op=SvcInstagramPublish');
}

for (const kind of HOSTS) {
  Deno.test(`publish-due callback (${kind} host)`, async (t) => {
    const cluster = await startPostgres();
    const world = await startWorld(cluster);
    const gw = await gatewayOf(kind, world, { HOST_AUTOMATION_BYPASS_SECRET: BYPASS });
    const key = SECRET;
    const seen: string[] = [];
    const keep = async (res: Response) => {
      seen.push(await res.clone().text(), JSON.stringify([...res.headers]));
      return res;
    };
    const due = (body: unknown, headers: Record<string, string> = { 'x-svc-publish-key': key }) =>
      pub(gw.url, '/publish-due', { method: 'POST', body, headers }).then(keep);
    try {
      const cookie = await unlock(gw.url);
      const reg = await keep(
        await pub(gw.url, '/register', { method: 'POST', headers: { cookie, 'x-svc-admin': '1' } }),
      );
      assert.equal(reg.status, 200);
      assert.equal((await reg.json()).bypass, true);

      await t.step('the job calls back with the secret, the bypass secret and {id}', async () => {
        const call = await dueCall(world, gw, { kind: 'post', media: [IMG], caption: 'hello' });
        assert.equal(call.url, `${PUBLIC_URL}/svc/publishing/publish-due`);
        assert.equal(call.headers['x-svc-publish-key'], key);
        assert.equal(call.headers['x-vercel-protection-bypass'], BYPASS);
        assert.equal(call.timeout_milliseconds, 300000);
        const before = publishes(world).length;
        const res = await keep(await replay(call, gw.url));
        assert.equal(res.status, 200);
        const outcome = await res.json();
        assert.equal(outcome.status, 'published');
        assert.match(outcome.permalink, /^https:\/\//);
        assert.equal(outcome.lastError, null);
        const sent = publishes(world).slice(before);
        assert.equal(sent.length, 1);
        assert.equal(sent[0].headers.authorization, `Bearer ${world.env.SVC_TOKEN}`);
        assert.deepEqual(sent[0].operations[0].rootFields, ['instagramAccountPublishImage']);
        assert.deepEqual(sent[0].operations[0].variables, {
          botID: BOT,
          input: { imageURL: IMG.url, caption: 'hello' },
        });
        const list = await (await pub(gw.url, `/posts?botID=${BOT}`, { bearer: world.owner }))
          .json();
        assert.equal(list[0].status, 'published');
        assert.equal(list[0].permalink, outcome.permalink);
      });

      await t.step('refusals before anything is taken or sent', async () => {
        const call = await dueCall(world, gw, { kind: 'post', media: [IMG] });
        const scheduled = await pub(gw.url, `/posts?botID=${BOT}`, {
          method: 'POST',
          bearer: world.owner,
          body: { kind: 'post', media: [IMG], scheduledAt: '2099-01-01' },
        });
        const notClaimed = (await scheduled.json()).id;
        await assertNothingReached(world.sandbox, async () => {
          await assertRefusal(await due(call.body, {}), 401, 'NotAllowed');
          await assertRefusal(
            await due(call.body, { 'x-svc-publish-key': 'wrong' }),
            401,
            'NotAllowed',
          );
          await assertRefusal(
            await due(call.body, { 'x-svc-publish-key': await sha256Hex(SECRET) }),
            401,
            'NotAllowed',
          );
          await assertRefusal(
            await due(call.body, { 'x-svc-publish-key': `${SECRET}x` }),
            401,
            'NotAllowed',
          );
          await assertRefusal(await due('[]'), 400, 'InvalidRequest');
          await assertRefusal(await due({ id: call.body.id, more: 1 }), 400, 'InvalidRequest');
          await assertRefusal(await due('{"id":'), 400, 'InvalidRequest');
          await assertRefusal(await due({ id: 'not-a-uuid' }), 404, 'PostNotFound');
          await assertRefusal(await due({ id: crypto.randomUUID() }), 404, 'PostNotFound');
          await assertRefusal(await due({ id: notClaimed }), 409, 'PostNotClaimed');
        });
        const res = await keep(await replay(call, gw.url));
        assert.equal((await res.json()).status, 'published', 'still claimed after the refusals');
      });

      await t.step('each kind becomes its publish field and input', async () => {
        const cases = [
          {
            post: {
              kind: 'reel',
              media: [VID],
              caption: 'r',
              coverUrl: 'https://cdn.example.test/c.jpg',
              shareToFeed: true,
              thumbOffset: 1.7,
            },
            field: 'instagramAccountPublishReel',
            input: {
              videoURL: VID.url,
              caption: 'r',
              coverURL: 'https://cdn.example.test/c.jpg',
              shareToFeed: true,
              thumbOffset: 1,
            },
          },
          {
            post: { kind: 'story', media: [VID], caption: 'ignored' },
            field: 'instagramAccountPublishStory',
            input: { mediaType: 'Video', mediaURL: VID.url },
          },
          {
            post: { kind: 'carousel', media: [IMG, VID] },
            field: 'instagramAccountPublishCarousel',
            input: {
              items: [{ mediaType: 'Image', mediaURL: IMG.url }, {
                mediaType: 'Video',
                mediaURL: VID.url,
              }],
              caption: null,
            },
          },
        ];
        for (const c of cases) {
          const call = await dueCall(world, gw, c.post);
          const before = publishes(world).length;
          const res = await keep(await replay(call, gw.url));
          assert.equal((await res.json()).status, 'published', c.field);
          const sent = publishes(world).slice(before);
          assert.deepEqual(sent[0].operations[0].rootFields, [c.field]);
          assert.deepEqual(sent[0].operations[0].variables, { botID: BOT, input: c.input });
        }
      });

      await t.step('two callbacks for one post publish it once', async () => {
        const call = await dueCall(world, gw, { kind: 'post', media: [IMG] });
        const before = publishes(world).length;
        const [a, b] = await Promise.all([replay(call, gw.url), replay(call, gw.url)]);
        const statuses = [a.status, b.status].sort();
        assert.deepEqual(statuses, [200, 409]);
        const loser = a.status === 409 ? a : b;
        await assertRefusal(loser, 409, 'PostNotClaimed');
        await (a.status === 200 ? a : b).body?.cancel();
        assert.equal(publishes(world).length - before, 1);
      });

      await t.step('failed and refused publishes record the reason', async () => {
        world.sandbox.switches.errors = {
          errors: upstreamError('InstagramAccountNotConnected', 'Connect an account first'),
          match: { operationName: 'SvcInstagramPublish' },
        };
        let res = await keep(
          await replay(await dueCall(world, gw, { kind: 'post', media: [IMG] }), gw.url),
        );
        let outcome = await res.json();
        assert.equal(outcome.status, 'failed');
        assert.equal(outcome.lastError, 'InstagramAccountNotConnected');
        world.sandbox.switches.errors = {
          errors: [{ message: 'Media could not be fetched' }],
          match: { operationName: 'SvcInstagramPublish' },
        };
        res = await keep(
          await replay(await dueCall(world, gw, { kind: 'post', media: [IMG] }), gw.url),
        );
        assert.equal((await res.json()).lastError, 'Media could not be fetched');
        world.sandbox.switches.errors = null;
        world.sandbox.switches.status = { status: 503, match: { path: '/graphql' } };
        res = await keep(
          await replay(await dueCall(world, gw, { kind: 'post', media: [IMG] }), gw.url),
        );
        outcome = await res.json();
        assert.equal(outcome.status, 'failed');
        assert.equal(outcome.lastError, 'The upstream answered HTTP 503');
        world.sandbox.reset();
      });

      await t.step('a publish slower than slowTimeoutMs fails with its own sentence', async () => {
        const slow = await gatewayOf(kind, world, {}, { slowTimeoutMs: 300 });
        try {
          world.sandbox.switches.delays = [{
            ms: 5000,
            match: { operationName: 'SvcInstagramPublish' },
          }];
          const call = await dueCall(world, gw, { kind: 'post', media: [IMG] });
          const res = await keep(await replay(call, slow.url));
          const outcome = await res.json();
          assert.equal(outcome.status, 'failed');
          assert.equal(outcome.lastError, 'The upstream did not answer within 300 ms');
          seen.push(...slow.lines);
        } finally {
          world.sandbox.reset();
          await slow.stop();
        }
      });

      await t.step(
        'no master token: 500 ProxyTokenMissing and the post stays claimed',
        async () => {
          const tokenless = await gatewayOf(kind, world, { SVC_TOKEN: undefined });
          try {
            const call = await dueCall(world, gw, { kind: 'post', media: [IMG] });
            await assertNothingReached(world.sandbox, async () => {
              await assertRefusal(await replay(call, tokenless.url), 500, 'ProxyTokenMissing');
            });
            const res = await keep(await replay(call, gw.url));
            assert.equal((await res.json()).status, 'published');
            seen.push(...tokenless.lines);
          } finally {
            await tokenless.stop();
          }
        },
      );

      await t.step('PUBLISHING_SECRET unset: the callback refuses everything', async () => {
        const unset = await gatewayOf(kind, world, { PUBLISHING_SECRET: undefined });
        try {
          const call = await dueCall(world, gw, { kind: 'post', media: [IMG] });
          await assertNothingReached(world.sandbox, async () => {
            await assertRefusal(await replay(call, unset.url), 500, 'ProxySocialMisconfigured');
            const bare = await pub(unset.url, '/publish-due', { method: 'POST', body: call.body });
            await assertRefusal(bare, 500, 'ProxySocialMisconfigured');
          });
          seen.push(...unset.lines);
          await (await replay(call, gw.url)).body?.cancel();
        } finally {
          await unset.stop();
        }
      });

      await t.step('no secret in any answer or log line', () => {
        const all = [...seen, ...gw.lines].join('\n');
        assert.ok(seen.length > 20);
        for (const secret of [SECRET, key, BYPASS, world.env.SVC_TOKEN!]) {
          assert.ok(!all.includes(secret), 'a secret leaked');
        }
      });
    } finally {
      await gw.stop();
      await world.stop();
      await cluster.stop();
    }
  });
}
