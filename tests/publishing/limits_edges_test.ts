/**
 * /svc/publishing at its edges and through its options, on both hosts (SPEC "Ceilings": JSON
 * route body 2 MiB, media file 25 MiB; "Publish queue"; option mediaTtlDays /
 * PUBLISHING_MEDIA_TTL_DAYS; "Gate and fences" ProxyInternalError):
 *
 * - POST /posts and /publish-due read a body of exactly 2 MiB and answer it as a small one; one
 *   byte more is 413 RequestTooLarge; a media file of exactly 25 MiB is stored, one byte more is
 *   413 MediaTooLarge; nothing reaches the upstream;
 * - /posts/<id> requires ?botID= (400 InvalidRequest without it, the post untouched);
 * - with PUBLISHING_SECRET unset posts are still stored (never fired);
 * - the media sweep keeps unreferenced objects 30 days by default, PUBLISHING_MEDIA_TTL_DAYS days
 *   when set;
 * - a failure thrown inside a route (here: the log sink fails on register's bucket warning) is
 *   500 ProxyInternalError, the queue's own backstop (Deno host in process: the log is a function).
 *
 * One PostgreSQL cluster and one world for the file; the figures are written here from the spec.
 */
import assert from 'node:assert/strict';
import { createSvcProxy } from '../../mod.ts';
import { serveDeno } from '../../hosts/deno/server.ts';
import { denoOutbound } from '../../hosts/deno/outbound.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { assertNothingReached, assertRefusal } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { unlock } from '../admin/helpers.ts';
import { BOT, BUCKET, gatewayOf, pub, SECRET, startWorld, type World } from './helpers.ts';

const JSON_CEILING = 2 * 1024 * 1024;
const MEDIA_CEILING = 25 * 1024 * 1024;
const DAY_MS = 24 * 60 * 60_000;
const IMG = { type: 'image', url: 'https://cdn.example.test/a.jpg' };
const Q = `?botID=${BOT}`;

/** `value` as JSON followed by spaces: exactly `total` bytes, the same JSON value. */
function spaced(value: unknown, total: number): string {
  const text = JSON.stringify(value);
  return text + ' '.repeat(total - text.length);
}

/** A JPEG head padded with zeros to `size` bytes. */
function jpeg(size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  bytes.set([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0]);
  return bytes;
}

function upload(url: string, bearer: string, file: Uint8Array<ArrayBuffer>): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([file], { type: 'image/jpeg' }), 'upload.jpg');
  return fetch(`${url}/svc/publishing/media${Q}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}` },
    body: form,
  });
}

/** The post rows of BOT. */
async function postCount(world: World): Promise<number> {
  const rows = await world.backend.seed.query<{ n: string }>(
    'select count(*) as n from public.svc_posts where bot_id = $1',
    [BOT],
  );
  return Number(rows.rows[0].n);
}

async function bodyEdges(world: World, url: string) {
  const post = { kind: 'post', media: [IMG], caption: 'edge' };
  const at = await pub(url, `/posts${Q}`, {
    method: 'POST',
    bearer: world.owner,
    body: spaced(post, JSON_CEILING),
  });
  const made = await at.json();
  assert.equal(at.status, 201, `2 MiB exactly is read: ${JSON.stringify(made)}`);
  assert.equal(made.caption, 'edge');
  const due = (body: string) =>
    pub(url, '/publish-due', { method: 'POST', body, headers: { 'x-svc-publish-key': SECRET } });
  const id = { id: crypto.randomUUID() };
  const small = await due(JSON.stringify(id));
  const smallCode = (await small.clone().json()).errors?.[0]?.extensions?.code;
  assert.ok(smallCode, `an unknown post is refused: ${await small.text()}`);
  const rows = await postCount(world);
  await assertNothingReached(world.sandbox, async () => {
    const over = await pub(url, `/posts${Q}`, {
      method: 'POST',
      bearer: world.owner,
      body: spaced(post, JSON_CEILING + 1),
    });
    await assertRefusal(over, 413, 'RequestTooLarge');
    await assertRefusal(await due(spaced(id, JSON_CEILING)), small.status, smallCode);
    await assertRefusal(await due(spaced(id, JSON_CEILING + 1)), 413, 'RequestTooLarge');
  });
  assert.equal(await postCount(world), rows, 'the refused post was not stored');
}

async function mediaEdges(world: World, url: string) {
  const stored = () => world.storage.buckets.get(BUCKET)?.size ?? 0;
  const before = stored();
  await assertNothingReached(world.sandbox, async () => {
    const at = await upload(url, world.owner, jpeg(MEDIA_CEILING));
    const body = await at.json();
    assert.equal(at.status, 201, `25 MiB exactly is stored: ${JSON.stringify(body)}`);
    assert.equal(body.bytes, MEDIA_CEILING);
    assert.equal(stored(), before + 1);
    await assertRefusal(
      await upload(url, world.owner, jpeg(MEDIA_CEILING + 1)),
      413,
      'MediaTooLarge',
    );
    assert.equal(stored(), before + 1, 'nothing stored past the ceiling');
  });
}

async function postIdNeedsBot(world: World, url: string) {
  const created = await pub(url, `/posts${Q}`, {
    method: 'POST',
    bearer: world.owner,
    body: { kind: 'post', media: [IMG] },
  });
  assert.equal(created.status, 201);
  const { id } = await created.json();
  await assertNothingReached(world.sandbox, async () => {
    for (const method of ['PATCH', 'DELETE']) {
      const res = await pub(url, `/posts/${id}`, {
        method,
        bearer: world.owner,
        ...(method === 'PATCH' ? { body: { caption: 'changed' } } : {}),
      });
      await assertRefusal(res, 400, 'InvalidRequest');
    }
  });
  const list = await (await pub(url, `/posts${Q}`, { bearer: world.owner })).json();
  const kept = list.find((p: { id: string }) => p.id === id);
  assert.ok(kept, 'the post is still there');
  assert.notEqual(kept.caption, 'changed');
  const gone = await pub(url, `/posts/${id}${Q}`, { method: 'DELETE', bearer: world.owner });
  assert.deepEqual(await gone.json(), { id }, 'with ?botID= the same call passes');
}

async function storedWithoutSecret(world: World, kind: (typeof HOSTS)[number]) {
  const unset = await gatewayOf(kind, world, { PUBLISHING_SECRET: undefined });
  try {
    const rows = await postCount(world);
    const created = await pub(unset.url, `/posts${Q}`, {
      method: 'POST',
      bearer: world.owner,
      body: { kind: 'post', media: [IMG], scheduledAt: '2030-01-01T10:00:00Z' },
    });
    const post = await created.json();
    assert.equal(created.status, 201, JSON.stringify(post));
    assert.equal(post.status, 'scheduled');
    assert.equal(await postCount(world), rows + 1);
    const list = await (await pub(unset.url, `/posts${Q}`, { bearer: world.owner })).json();
    assert.ok(list.some((p: { id: string }) => p.id === post.id), 'listed');
  } finally {
    await unset.stop();
  }
}

/** Uploads two objects, ages them `ages` days, sweeps through `url`: the keys removed. */
async function sweep(world: World, url: string, ages: number[]): Promise<boolean[]> {
  const keys: string[] = [];
  for (const age of ages) {
    const res = await upload(url, world.owner, jpeg(4096));
    const { key } = await res.json();
    await world.backend.seed.query(
      `update public.svc_media set created_at = now() - make_interval(secs => $2) where key = $1`,
      [key, (age * DAY_MS) / 1000],
    );
    keys.push(key);
  }
  const swept = await pub(url, '/media-sweep', {
    method: 'POST',
    headers: { 'x-svc-publish-key': SECRET },
  });
  assert.equal(swept.status, 200, await swept.clone().text());
  await swept.body?.cancel();
  const objects = world.storage.buckets.get(BUCKET)!;
  return keys.map((key) => !objects.has(key));
}

async function mediaTtl(world: World, url: string, kind: (typeof HOSTS)[number]) {
  // default 30 days: 29.5 days kept, 30.5 removed
  assert.deepEqual(await sweep(world, url, [29.5, 30.5]), [false, true]);
  const short = await gatewayOf(kind, world, { PUBLISHING_MEDIA_TTL_DAYS: '2' });
  try {
    assert.deepEqual(await sweep(world, short.url, [1.5, 2.5]), [false, true]);
  } finally {
    await short.stop();
  }
}

/** Register's bucket warning line throws: the queue's backstop answers 500 ProxyInternalError. */
async function backstop(world: World) {
  const lines: string[] = [];
  const env = { ...world.env, PUBLISHING_MEDIA_BUCKET: 'no-such-bucket' };
  const proxy = createSvcProxy({
    loopbackOnly: true,
    ...denoOutbound(),
    log: (line) => {
      if (line.includes('WARNING: the media bucket')) throw new Error('the log sink failed');
      lines.push(line);
    },
  }, env);
  const host = await serveDeno(proxy, '127.0.0.1', 0);
  try {
    const cookie = await unlock(host.url);
    const res = await pub(host.url, '/register', {
      method: 'POST',
      headers: { cookie, 'x-svc-admin': '1' },
    });
    const message = await assertRefusal(res, 500, 'ProxyInternalError');
    assert.equal(message, 'The publish queue failed to handle this request');
    assert.ok(lines.some((l) => l.includes('publishing handler failed')));
  } finally {
    await host.shutdown();
  }
}

Deno.test('publish queue at its edges and through its options', async (t) => {
  const cluster = await startPostgres();
  const world = await startWorld(cluster);
  try {
    for (const kind of HOSTS) {
      const gw = await gatewayOf(kind, world);
      try {
        await t.step(
          `[${kind}] JSON bodies: 2 MiB exactly read, one byte more 413`,
          () => bodyEdges(world, gw.url),
        );
        await t.step(
          `[${kind}] media: 25 MiB exactly stored, one byte more 413 MediaTooLarge`,
          () => mediaEdges(world, gw.url),
        );
        await t.step(
          `[${kind}] /posts/<id> requires ?botID= (400 InvalidRequest)`,
          () => postIdNeedsBot(world, gw.url),
        );
        await t.step(
          `[${kind}] PUBLISHING_SECRET unset: posts are stored`,
          () => storedWithoutSecret(world, kind),
        );
        await t.step(
          `[${kind}] media sweep: 30 days by default, PUBLISHING_MEDIA_TTL_DAYS set`,
          () => mediaTtl(world, gw.url, kind),
        );
      } finally {
        await gw.stop();
      }
    }
    await t.step('[deno] a route that throws is 500 ProxyInternalError', () => backstop(world));
  } finally {
    await world.stop();
    await cluster.stop();
  }
});
