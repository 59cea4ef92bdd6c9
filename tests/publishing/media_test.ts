/**
 * POST/DELETE /svc/publishing/media over real HTTP on both hosts, against the fake Storage API
 * (supabase-js's own calls): the five types checked against their bytes, the 25 MiB ceiling, the
 * bot's share, fencing of bots and keys, storage failures (SPEC "Publish queue" media rows).
 */
import assert from 'node:assert/strict';
import { assertNothingReached, assertRefusal } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import {
  BOT,
  BUCKET,
  gatewayOf,
  OTHER_BOT,
  pub,
  PUBLIC_URL,
  SECRET,
  startWorld,
} from './helpers.ts';
import { replay, takeRecordedPosts } from './pg_net_standin.ts';

const enc = (s: string) => new TextEncoder().encode(s);
function bytes(head: (number[] | Uint8Array)[], size = 4096): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  out.set(head.flatMap((p) => Array.from(p)));
  return out;
}
/** Minimal heads of each type (what the sniffer reads), padded. */
const SAMPLES = {
  'image/jpeg': bytes([[0xff, 0xd8, 0xff, 0xe0, 0, 16], enc('JFIF'), [0]]),
  'image/png': bytes([
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13],
    enc('IHDR'),
    [0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0, 0x90, 0x77, 0x53, 0xde],
  ]),
  'image/webp': bytes([enc('RIFF'), [0x24, 0, 0, 0], enc('WEBPVP8 ')]),
  'video/mp4': bytes([[0, 0, 0, 0x18], enc('ftypisom'), [0, 0, 2, 0], enc('isomiso2')]),
  'video/quicktime': bytes([[0, 0, 0, 0x14], enc('ftypqt  '), [0, 0, 2, 0], enc('qt  ')]),
} as const;

function upload(
  url: string,
  bearer: string,
  query: string,
  file: Uint8Array<ArrayBuffer> | null,
  type: string,
  field = 'file',
): Promise<Response> {
  const form = new FormData();
  if (file) form.append(field, new Blob([file], { type }), 'upload.bin');
  else form.append('note', 'no file here');
  return fetch(`${url}/svc/publishing/media${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}` },
    body: form,
  });
}

function remove(url: string, bearer: string, query: string): Promise<Response> {
  return fetch(`${url}/svc/publishing/media${query}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${bearer}` },
  });
}

for (const kind of HOSTS) {
  Deno.test(`publishing media (${kind} host)`, async (t) => {
    const cluster = await startPostgres();
    const world = await startWorld(cluster);
    const gw = await gatewayOf(kind, world);
    const objects = () => world.storage.buckets.get(BUCKET)!;
    const q = `?botID=${BOT}`;
    try {
      await t.step('each of the five types is stored under the bot prefix', async () => {
        for (const [type, file] of Object.entries(SAMPLES)) {
          const res = await upload(gw.url, world.owner, q, file, type);
          const body = await res.json();
          assert.equal(res.status, 201, JSON.stringify(body));
          assert.match(body.key, new RegExp(`^${BOT}/[0-9a-f-]{36}\\.(jpg|png|webp|mp4|mov)$`));
          assert.equal(body.contentType, type);
          assert.equal(body.bytes, file.byteLength);
          assert.equal(
            body.url,
            `${world.storage.url}/storage/v1/object/public/${BUCKET}/${body.key}`,
          );
          const stored = objects().get(body.key);
          assert.ok(stored, 'the object is in the bucket');
          assert.deepEqual(stored.bytes, file);
          assert.equal(stored.contentType, type);
          assert.equal(stored.cacheControl, 'max-age=31536000');
          const fetched = await fetch(body.url);
          assert.deepEqual(new Uint8Array(await fetched.arrayBuffer()), file);
        }
        // MP4 and QuickTime share a container: either declaration takes either
        const res = await upload(gw.url, world.owner, q, SAMPLES['video/mp4'], 'video/quicktime');
        assert.equal(res.status, 201);
        await res.body?.cancel();
      });

      await t.step('refusals: type, bytes, size, no file part, bot fence', async () => {
        const before = objects().size;
        await assertNothingReached(world.sandbox, async () => {
          await assertRefusal(
            await upload(
              gw.url,
              world.owner,
              q,
              enc('GIF89a') as Uint8Array<ArrayBuffer>,
              'image/gif',
            ),
            415,
            'MediaTypeNotAllowed',
          );
          await assertRefusal(
            await upload(gw.url, world.owner, q, SAMPLES['image/jpeg'], 'image/png'),
            415,
            'MediaTypeMismatch',
          );
          await assertRefusal(
            await upload(gw.url, world.owner, q, bytes([enc('just text')]), 'image/jpeg'),
            415,
            'MediaTypeMismatch',
          );
          const huge = bytes([[0xff, 0xd8, 0xff, 0xe0]], 25 * 1024 * 1024 + 1);
          await assertRefusal(
            await upload(gw.url, world.owner, q, huge, 'image/jpeg'),
            413,
            'MediaTooLarge',
          );
          await assertRefusal(
            await upload(gw.url, world.owner, q, null, 'image/jpeg'),
            400,
            'InvalidRequest',
          );
          await assertRefusal(
            await upload(gw.url, world.owner, q, SAMPLES['image/jpeg'], 'image/jpeg', 'other'),
            400,
            'InvalidRequest',
          );
          await assertRefusal(
            await upload(gw.url, world.owner, '', SAMPLES['image/jpeg'], 'image/jpeg'),
            400,
            'InvalidRequest',
          );
          await assertRefusal(
            await upload(gw.url, world.owner, '?botID=a%2Fb', SAMPLES['image/jpeg'], 'image/jpeg'),
            422,
            'BadBotId',
          );
          await assertRefusal(
            await upload(gw.url, world.stranger, q, SAMPLES['image/jpeg'], 'image/jpeg'),
            403,
            'BotNotAllowed',
          );
        });
        assert.equal(objects().size, before, 'nothing was stored');
      });

      await t.step("delete: only the bot's own written keys", async () => {
        const mine = await (await upload(gw.url, world.owner, q, SAMPLES['image/png'], 'image/png'))
          .json();
        const theirs = await (await upload(
          gw.url,
          world.stranger,
          `?botID=${OTHER_BOT}`,
          SAMPLES['image/png'],
          'image/png',
        )).json();
        const calls = world.storage.calls.length;
        for (
          const key of ['', theirs.key, `${BOT}/../${theirs.key}`, `${BOT}/notes.txt`, `${BOT}/.`]
        ) {
          await assertRefusal(
            await remove(gw.url, world.owner, `${q}&key=${encodeURIComponent(key)}`),
            404,
            'MediaNotFound',
          );
        }
        await assertRefusal(
          await remove(gw.url, world.stranger, `${q}&key=${encodeURIComponent(mine.key)}`),
          403,
          'BotNotAllowed',
        );
        assert.equal(world.storage.calls.length, calls, 'no storage call for a refused key');
        assert.ok(objects().has(theirs.key));
        const res = await remove(gw.url, world.owner, `${q}&key=${encodeURIComponent(mine.key)}`);
        assert.deepEqual(await res.json(), { key: mine.key, deleted: true });
        assert.ok(!objects().has(mine.key));
        await assertRefusal(
          await remove(gw.url, world.owner, `${q}&key=${encodeURIComponent(mine.key)}`),
          404,
          'MediaNotFound',
        );
      });

      await t.step('storage refusals: 502 MediaUploadFailed / MediaDeleteFailed', async () => {
        const kept = await (await upload(gw.url, world.owner, q, SAMPLES['image/png'], 'image/png'))
          .json();
        world.storage.switches.failUpload = true;
        const rows = await world.backend.seed.query(
          'select count(*)::int as n from public.svc_media',
        );
        await assertRefusal(
          await upload(gw.url, world.owner, q, SAMPLES['image/png'], 'image/png'),
          502,
          'MediaUploadFailed',
        );
        const after = await world.backend.seed.query(
          'select count(*)::int as n from public.svc_media',
        );
        assert.equal(after.rows[0].n, rows.rows[0].n, 'the reservation was dropped');
        world.storage.switches.failUpload = false;
        world.storage.switches.failDelete = true;
        await assertRefusal(
          await remove(gw.url, world.owner, `${q}&key=${encodeURIComponent(kept.key)}`),
          502,
          'MediaDeleteFailed',
        );
        assert.ok(objects().has(kept.key));
        world.storage.switches.failDelete = false;
      });

      await t.step("the bot's share: 507 MediaQuotaExceeded", async () => {
        const small = await gatewayOf(kind, world, { PUBLISHING_MEDIA_QUOTA_MB: '1' });
        try {
          await world.backend.seed.query('delete from public.svc_media');
          const big = bytes([[0xff, 0xd8, 0xff, 0xe0, 0, 16], enc('JFIF'), [0]], 600 * 1024);
          const first = await upload(small.url, world.owner, q, big, 'image/jpeg');
          assert.equal(first.status, 201);
          await first.body?.cancel();
          await assertRefusal(
            await upload(small.url, world.owner, q, big, 'image/jpeg'),
            507,
            'MediaQuotaExceeded',
          );
          // another bot's share is its own
          const other = await upload(
            small.url,
            world.stranger,
            `?botID=${OTHER_BOT}`,
            big,
            'image/jpeg',
          );
          assert.equal(other.status, 201);
          await other.body?.cancel();
          assert.ok(!small.lines.join('\n').includes(SECRET));
        } finally {
          await small.stop();
        }
      });

      await t.step('the daily sweep removes unreferenced objects past the TTL', async () => {
        const key = SECRET;
        await world.backend.seed.query('select public.svc_publishing_register($1, $2, null)', [
          `${PUBLIC_URL}/svc/publishing/publish-due`,
          key,
        ]);
        const put = async () =>
          (await upload(gw.url, world.owner, q, SAMPLES['image/webp'], 'image/webp')).json();
        const [old, kept, young] = [await put(), await put(), await put()];
        const post = await pub(gw.url, `/posts${q}`, {
          method: 'POST',
          bearer: world.owner,
          body: {
            kind: 'post',
            media: [{ type: 'image', url: 'https://cdn.example.test/k.webp', source: kept.key }],
          },
        });
        assert.equal(post.status, 201);
        await post.body?.cancel();
        await world.backend.seed.query(
          `update public.svc_media set created_at = now() - interval '31 days' where key = any($1)`,
          [[old.key, kept.key]],
        );
        const tick = await world.backend.seed.query('select public.svc_media_sweep_tick() as n');
        assert.equal(tick.rows[0].n, 1);
        const [call] = await takeRecordedPosts(world.backend.seed);
        assert.equal(call.url, `${PUBLIC_URL}/svc/publishing/media-sweep`);
        await assertRefusal(
          await replay({ ...call, headers: { 'content-type': 'application/json' } }, gw.url),
          401,
          'NotAllowed',
        );
        assert.ok(objects().has(old.key), 'nothing removed by a refused sweep');
        const res = await replay(call, gw.url);
        assert.deepEqual(await res.json(), { removed: 1 });
        assert.ok(!objects().has(old.key), 'the unreferenced old object is gone');
        assert.ok(objects().has(kept.key), 'a referenced object stays');
        assert.ok(objects().has(young.key), 'a young object stays');
        const rows = await world.backend.seed.query(
          'select key from public.svc_media where key = any($1)',
          [[old.key, kept.key, young.key]],
        );
        assert.equal(rows.rows.length, 2);
      });

      await t.step('no secret or key in any log line', () => {
        const all = gw.lines.join('\n');
        for (const secret of [SECRET, world.env.BACKEND_SERVICE_ROLE_KEY!, world.env.SVC_TOKEN!]) {
          assert.ok(!all.includes(secret));
        }
      });
    } finally {
      await gw.stop();
      await world.stop();
      await cluster.stop();
    }
  });
}
