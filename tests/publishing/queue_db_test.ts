/**
 * The publish queue's SQL (supabase/migrations/*_svc_publishing.sql) on the real PostgreSQL
 * through the PostgREST-compatible endpoint: posts CRUD as the signed-in owner (fenced by
 * svc_my_bot_ids), validation hints, claim / take / report / reap as the service role, the claim
 * race, and registration. Time is simulated by moving scheduled_at / claimed_at.
 */
import assert from 'node:assert/strict';
import { DEFAULTS } from '../../src/config/defaults.ts';
import { type Backend, startBackend } from '../fixtures/db/backend.ts';
import { type PostgresCluster, startPostgres } from '../fixtures/db/postgres.ts';

const BOT = 'b00000000000000000000001';
const OTHER_BOT = 'b00000000000000000000003';
const KEY = 'a'.repeat(64);
const IMG = { type: 'image', url: 'https://cdn.example.test/a.jpg' };
const VID = { type: 'video', url: 'https://cdn.example.test/a.mp4' };

interface World {
  backend: Backend;
  owner: string;
  stranger: string;
}

async function withWorld(cluster: PostgresCluster, fn: (w: World) => Promise<void>) {
  const backend = await startBackend(cluster);
  try {
    const ownerId = await backend.seed.createUser('owner@example.test');
    const ws = await backend.seed.createWorkspace('Acme', ownerId);
    await backend.seed.createBot(ws, 'Bot', BOT);
    const strangerId = await backend.seed.createUser('stranger@example.test');
    const ws2 = await backend.seed.createWorkspace('Other', strangerId);
    await backend.seed.createBot(ws2, 'Other bot', OTHER_BOT);
    await fn({
      backend,
      owner: await backend.rest.mintUserToken(ownerId),
      stranger: await backend.rest.mintUserToken(strangerId),
    });
  } finally {
    await backend.stop();
  }
}

type Answer = { status: number; body: Record<string, unknown> };

async function asUser(w: World, jwt: string, fn: string, args: Record<string, unknown>) {
  return await w.backend.rpc(fn, args, jwt) as Answer;
}

async function asService(w: World, fn: string, args: Record<string, unknown>) {
  const key = w.backend.rest.serviceRoleKey;
  return await w.backend.rpc(fn, args, key, key) as Answer;
}

function refused(answer: Answer, status: number, hint: string) {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.equal(answer.body.hint, hint, JSON.stringify(answer.body));
}

async function create(w: World, post: Record<string, unknown>) {
  const answer = await asUser(w, w.owner, 'svc_post_create', { p_bot_id: BOT, p_post: post });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body as Record<string, unknown> & { id: string };
}

type Post = Awaited<ReturnType<typeof create>>;

/** Makes a scheduled post due (its time a minute ago). */
async function makeDue(w: World, id: string) {
  await w.backend.seed.query(
    `update public.svc_posts set scheduled_at = now() - interval '1 minute' where id = $1`,
    [id],
  );
}

async function createListPatchDelete(w: World) {
  const draft = await create(w, { kind: 'post', media: [IMG], caption: 'hello' });
  assert.equal(draft.status, 'draft');
  assert.equal(draft.scheduledAt, null);
  assert.equal(draft.botId, BOT);
  assert.deepEqual(draft.media, [{ ...IMG, id: null, source: null }]);
  const later = await create(w, {
    kind: 'reel',
    media: [VID],
    scheduledAt: '2030-01-02 03:04:05+02',
    thumbOffset: 2.9,
    shareToFeed: true,
  });
  assert.equal(later.status, 'scheduled');
  assert.equal(later.scheduledAt, '2030-01-02T01:04:05.000Z');
  assert.equal(later.thumbOffset, 2);
  const list = await asUser(w, w.owner, 'svc_posts_list', { p_bot_id: BOT });
  assert.deepEqual((list.body as unknown as { id: string }[]).map((p) => p.id), [
    later.id,
    draft.id,
  ]);
  const patched = await asUser(w, w.owner, 'svc_post_update', {
    p_bot_id: BOT,
    p_id: draft.id,
    p_patch: { scheduledAt: '2031-05-05T10:00:00Z' },
  });
  assert.equal(patched.body.status, 'scheduled');
  const back = await asUser(w, w.owner, 'svc_post_update', {
    p_bot_id: BOT,
    p_id: draft.id,
    p_patch: { scheduledAt: '' },
  });
  assert.equal(back.body.status, 'draft');
  const gone = await asUser(w, w.owner, 'svc_post_delete', { p_bot_id: BOT, p_id: draft.id });
  assert.deepEqual(gone.body, { id: draft.id });
  refused(
    await asUser(w, w.owner, 'svc_post_delete', { p_bot_id: BOT, p_id: draft.id }),
    404,
    'post_not_found',
  );
}

async function validationHints(w: World) {
  const bad = async (post: unknown, hint: string) =>
    refused(
      await asUser(w, w.owner, 'svc_post_create', { p_bot_id: BOT, p_post: post }),
      422,
      hint,
    );
  await bad({ media: [IMG] }, 'bad_kind');
  await bad({ kind: 'tweet', media: [IMG] }, 'bad_kind');
  await bad({ kind: 'post', media: [VID] }, 'bad_media');
  await bad({ kind: 'reel', media: [IMG] }, 'bad_media');
  await bad({ kind: 'story', media: [] }, 'bad_media');
  await bad({ kind: 'carousel', media: [IMG] }, 'bad_media');
  await bad({ kind: 'carousel', media: Array(11).fill(IMG) }, 'bad_media');
  await bad({ kind: 'post', media: ['x'] }, 'bad_media');
  await bad(
    { kind: 'post', media: [{ type: 'image', url: 'http://a.test/x.jpg' }] },
    'insecure_url',
  );
  await bad(
    { kind: 'post', media: [{ type: 'image', url: 'file:///etc/passwd' }] },
    'insecure_url',
  );
  await bad({ kind: 'post', media: [{ type: 'image', url: 'not a url' }] }, 'bad_url');
  await bad({ kind: 'post', media: [{ type: 'image' }] }, 'bad_url');
  await bad({ kind: 'reel', media: [VID], coverUrl: 'http://a.test/c.jpg' }, 'insecure_url');
  await bad({ kind: 'post', media: [IMG], scheduledAt: 'next tuesday-ish' }, 'bad_time');
  await bad({ kind: 'post', media: [IMG], status: 'scheduled' }, 'bad_time');
  await bad(
    { kind: 'post', media: [IMG], status: 'draft', scheduledAt: '2030-01-01' },
    'bad_time',
  );
  await bad({ kind: 'post', media: [IMG], status: 'published' }, 'bad_status');
  await bad({ kind: 'post', media: [IMG], permalink: 'https://x.test' }, 'bad_patch');
  await bad({ kind: 'post', media: [IMG], caption: 'é'.repeat(2201) }, 'caption_too_long');
  await bad('not an object', 'bad_patch');
  // 2200 code points (each 2 bytes in UTF-8) is still fine
  await create(w, { kind: 'post', media: [IMG], caption: 'é'.repeat(2200) });
  const story = await create(w, { kind: 'story', media: [VID], caption: '' });
  assert.equal(story.caption, null);
}

async function fencing(w: World) {
  const post = await create(w, { kind: 'post', media: [IMG] });
  refused(
    await asUser(w, w.stranger, 'svc_posts_list', { p_bot_id: BOT }),
    403,
    'bot_not_allowed',
  );
  refused(
    await asUser(w, w.stranger, 'svc_post_delete', { p_bot_id: BOT, p_id: post.id }),
    403,
    'bot_not_allowed',
  );
  // the stranger's own bot does not reach the owner's post
  refused(
    await asUser(w, w.stranger, 'svc_post_update', {
      p_bot_id: OTHER_BOT,
      p_id: post.id,
      p_patch: { caption: 'mine' },
    }),
    404,
    'post_not_found',
  );
  refused(
    await asUser(w, w.owner, 'svc_posts_list', { p_bot_id: 'a/b' }),
    422,
    'bad_bot_id',
  );
  refused(
    await asUser(w, w.owner, 'svc_post_update', { p_bot_id: BOT, p_id: 'x', p_patch: {} }),
    404,
    'post_not_found',
  );
  const anon = await w.backend.rpc('svc_posts_list', { p_bot_id: BOT });
  assert.equal(anon.status, 401);
  const asService = await w.backend.rpc(
    'svc_post_take',
    { p_id: post.id, p_key: KEY },
    w.owner,
  );
  assert.equal(asService.status, 403, 'a user cannot call the scheduler functions');
}

/**
 * Claim, take once, report; edits refused meanwhile: in sub-steps that share the posts made
 * in the second (a failure names the sub-step; the later ones then fail too).
 */
async function claimTakeReport(w: World, t: Deno.TestContext) {
  let due!: Post, notDue!: Post, draft!: Post;
  await t.step('take refused before registration; register without pg_cron', async () => {
    refused(
      await asService(w, 'svc_post_take', { p_id: crypto.randomUUID(), p_key: KEY }),
      401,
      'bad_secret',
    );
    const reg = await asService(w, 'svc_publishing_register', {
      p_callback_url: 'https://app.example.test/svc/publishing/publish-due',
      p_publish_key: KEY,
    });
    assert.equal(reg.status, 200, JSON.stringify(reg.body));
    assert.equal(reg.body.scheduled, false, 'no pg_cron on this cluster');
  });
  await t.step('claim returns the due post, once', async () => {
    due = await create(w, { kind: 'post', media: [IMG], scheduledAt: '2030-01-01' });
    notDue = await create(w, { kind: 'post', media: [IMG], scheduledAt: '2099-01-01' });
    draft = await create(w, { kind: 'post', media: [IMG] });
    await makeDue(w, due.id);
    const claimed = await asService(w, 'svc_posts_claim', { p_limit: 20 });
    assert.deepEqual(claimed.body, [due.id]);
    assert.deepEqual((await asService(w, 'svc_posts_claim', {})).body, []);
  });
  await t.step(
    'a claimed post refuses edits; take refuses a wrong key, unclaimed, unknown',
    async () => {
      refused(
        await asUser(w, w.owner, 'svc_post_update', {
          p_bot_id: BOT,
          p_id: due.id,
          p_patch: { caption: 'x' },
        }),
        409,
        'bad_status',
      );
      refused(
        await asUser(w, w.owner, 'svc_post_delete', { p_bot_id: BOT, p_id: due.id }),
        409,
        'bad_status',
      );
      refused(
        await asService(w, 'svc_post_take', { p_id: due.id, p_key: 'b'.repeat(64) }),
        401,
        'bad_secret',
      );
      refused(
        await asService(w, 'svc_post_take', { p_id: notDue.id, p_key: KEY }),
        409,
        'not_claimed',
      );
      refused(
        await asService(w, 'svc_post_take', { p_id: draft.id, p_key: KEY }),
        409,
        'not_claimed',
      );
      refused(
        await asService(w, 'svc_post_take', { p_id: crypto.randomUUID(), p_key: KEY }),
        404,
        'post_not_found',
      );
      refused(
        await asService(w, 'svc_post_take', { p_id: 'nope', p_key: KEY }),
        404,
        'post_not_found',
      );
    },
  );
  await t.step('two callbacks race for the same post: exactly one takes it', async () => {
    const [a, b] = await Promise.all([
      asService(w, 'svc_post_take', { p_id: due.id, p_key: KEY }),
      asService(w, 'svc_post_take', { p_id: due.id, p_key: KEY }),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [200, 409]);
    const taken = a.status === 200 ? a : b;
    assert.equal(taken.body.botId, BOT);
    assert.equal(taken.body.status, 'publishing');
  });
  await t.step('report: an insecure permalink refused, then recorded once', async () => {
    refused(
      await asService(w, 'svc_post_report', {
        p_id: due.id,
        p_key: KEY,
        p_outcome: 'published',
        p_permalink: 'http://insecure.test/p',
      }),
      422,
      'bad_permalink',
    );
    const done = await asService(w, 'svc_post_report', {
      p_id: due.id,
      p_key: KEY,
      p_outcome: 'published',
      p_permalink: 'https://instagram.test/p/1',
      p_media_id: '1789',
    });
    assert.equal(done.body.status, 'published');
    assert.equal(done.body.permalink, 'https://instagram.test/p/1');
    refused(
      await asService(w, 'svc_post_report', { p_id: due.id, p_key: KEY, p_outcome: 'failed' }),
      409,
      'not_claimed',
    );
  });
}

async function failedAndRescheduled(w: World) {
  await asService(w, 'svc_publishing_register', {
    p_callback_url: 'http://127.0.0.1:9/svc/publishing/publish-due',
    p_publish_key: KEY,
  });
  const post = await create(w, { kind: 'post', media: [IMG], scheduledAt: '2030-01-01' });
  await makeDue(w, post.id);
  await asService(w, 'svc_posts_claim', {});
  await asService(w, 'svc_post_take', { p_id: post.id, p_key: KEY });
  const failed = await asService(w, 'svc_post_report', {
    p_id: post.id,
    p_key: KEY,
    p_outcome: 'failed',
    p_error: 'InstagramAccountNotConnected',
  });
  assert.equal(failed.body.status, 'failed');
  assert.equal(failed.body.lastError, 'InstagramAccountNotConnected');
  const again = await asUser(w, w.owner, 'svc_post_update', {
    p_bot_id: BOT,
    p_id: post.id,
    p_patch: { scheduledAt: '2030-02-01' },
  });
  assert.equal(again.body.status, 'scheduled');
  assert.equal(again.body.lastError, null);
  assert.equal(again.body.attempts, 0);
}

async function reaper(w: World) {
  const post = await create(w, { kind: 'post', media: [IMG], scheduledAt: '2030-01-01' });
  const stick = () =>
    w.backend.seed.query(
      `update public.svc_posts set claimed_at = now() - interval '11 minutes' where id = $1`,
      [post.id],
    );
  for (let attempt = 1; attempt <= 3; attempt++) {
    await makeDue(w, post.id);
    assert.deepEqual((await asService(w, 'svc_posts_claim', {})).body, [post.id]);
    assert.equal((await asService(w, 'svc_posts_reap', {})).body, 0, 'not stuck yet');
    await stick();
    assert.equal((await asService(w, 'svc_posts_reap', {})).body, 1);
  }
  const list = await asUser(w, w.owner, 'svc_posts_list', { p_bot_id: BOT });
  const row = (list.body as unknown as Record<string, unknown>[])[0];
  assert.equal(row.status, 'failed');
  assert.equal(row.attempts, 3);
  assert.match(String(row.lastError), /3 attempts/);
  // a post a callback took but never reported is failed, not retried (it may be out)
  const taken = await create(w, { kind: 'post', media: [IMG], scheduledAt: '2030-01-01' });
  await asService(w, 'svc_publishing_register', {
    p_callback_url: 'https://app.example.test/svc/publishing/publish-due',
    p_publish_key: KEY,
  });
  await makeDue(w, taken.id);
  await asService(w, 'svc_posts_claim', {});
  assert.equal(
    (await asService(w, 'svc_post_take', { p_id: taken.id, p_key: KEY })).status,
    200,
  );
  await w.backend.seed.query(
    `update public.svc_posts set claimed_at = now() - interval '11 minutes' where id = $1`,
    [taken.id],
  );
  assert.equal((await asService(w, 'svc_posts_reap', {})).body, 1);
  const after = await asUser(w, w.owner, 'svc_posts_list', { p_bot_id: BOT });
  const row2 = (after.body as unknown as Record<string, unknown>[]).find((p) => p.id === taken.id)!;
  assert.equal(row2.status, 'failed');
  assert.match(String(row2.lastError), /never recorded/);
}

async function registration(w: World) {
  refused(
    await asService(w, 'svc_publishing_register', {
      p_callback_url: 'http://app.example.test/svc/publishing/publish-due',
      p_publish_key: KEY,
    }),
    422,
    'insecure_url',
  );
  refused(
    await asService(w, 'svc_publishing_register', {
      p_callback_url: 'https://app.example.test/svc/publishing/publish-due',
      p_publish_key: 'two words',
    }),
    422,
    'bad_secret',
  );
  refused(
    await asService(w, 'svc_publishing_register', {
      p_callback_url: 'https://app.example.test/svc/publishing/publish-due',
      p_publish_key: 'x'.repeat(DEFAULTS.publishingSecretMaxChars + 1),
    }),
    422,
    'bad_secret',
  );
  const status = await asService(w, 'svc_publishing_status', {});
  assert.equal(status.body.registered, false);
  const tick = await asService(w, 'svc_publish_tick', {});
  assert.equal(tick.body, 0, 'nothing registered: nothing fired');
  const longest = await asService(w, 'svc_publishing_register', {
    p_callback_url: 'https://app.example.test/svc/publishing/publish-due',
    p_publish_key: '~'.repeat(DEFAULTS.publishingSecretMaxChars),
  });
  assert.equal(longest.status, 200, 'the longest secret is taken');
  assert.equal((await asService(w, 'svc_publishing_status', {})).body.registered, true);
}

/** The steps in order, each on a fresh world on the one cluster this file starts. */
const STEPS: [string, (w: World, t: Deno.TestContext) => Promise<void>][] = [
  ['create, list, patch, delete; status follows the time', createListPatchDelete],
  ['validation hints', validationHints],
  ['fencing: another user, a bot id not key-shaped, no session', fencing],
  ['claim, take once, report; edits refused meanwhile', claimTakeReport],
  ['a failed post records the reason and can be rescheduled', failedAndRescheduled],
  ['the reaper returns stuck posts, fails them after 3 attempts or once taken', reaper],
  ['registration refuses an insecure callback and a malformed key', registration],
];

Deno.test('publish queue SQL', async (t) => {
  const cluster = await startPostgres();
  try {
    for (const [name, step] of STEPS) {
      await t.step(name, (t) => withWorld(cluster, (w) => step(w, t)));
    }
  } finally {
    await cluster.stop();
  }
});
