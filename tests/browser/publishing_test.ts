/**
 * The publish queue's typed calls in Chromium on both hosts, on the publishing suite's world
 * (tests/publishing/helpers.ts: real PostgreSQL, the fake Storage API, the sandbox): config,
 * posts created, listed, edited and dropped, a media upload reporting progress and its delete,
 * a refusal keeping its code, and register by the admin panel holder.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { ADMIN_PASSWORD, BOT, BUCKET, OTHER_BOT, startWorld } from '../publishing/helpers.ts';
import { launchBrowser } from './browser.ts';
import { buildDist } from './dist.ts';
import { type CallResult, pageGlobals } from './page_types.ts';
import { startPageGateway } from './serve.ts';

const JPEG_HEAD = [0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0];

function route(page: Page, group: 'admin' | 'publishing', method: string, ...args: unknown[]) {
  return page.evaluate(
    ([g, m, a]) => pageGlobals().svcTest.route(g, m, a),
    [group, method, args] as const,
  );
}

function data<T>(result: CallResult): T {
  assert.equal(result.ok, true, JSON.stringify(result));
  return (result as { data: T }).data;
}

Deno.test('client publishing calls in Chromium, both hosts', async (t) => {
  const cluster = await startPostgres();
  const dist = await buildDist();
  const browser = await launchBrowser();
  try {
    for (const kind of HOSTS) {
      const world = await startWorld(cluster);
      const gateway = await startPageGateway(kind, world.env, dist);
      const context = await browser.newContext();
      try {
        const page = await gateway.open(context, '/harness.html');
        await page.evaluate((t) => pageGlobals().svcTest.setToken(t), world.owner);

        await t.step(
          `[${kind}] config and posts: create, list, edit, drop; a foreign bot refused`,
          async () => {
            const config = data<{ scheduling: boolean; media: { contentTypes: string[] } }>(
              await route(page, 'publishing', 'config'),
            );
            assert.ok(config.media.contentTypes.includes('image/jpeg'));
            const input = {
              kind: 'post',
              media: [{ type: 'image', url: 'https://cdn.example.test/a.jpg' }],
              caption: 'hello',
            };
            const post = data<{ id: string; botId: string; status: string }>(
              await route(page, 'publishing', 'createPost', BOT, input),
            );
            assert.equal(post.botId, BOT);
            assert.equal(post.status, 'draft');
            const listed = data<{ id: string }[]>(await route(page, 'publishing', 'posts', BOT));
            assert.deepEqual(listed.map((p) => p.id), [post.id]);
            const edited = data<{ caption: string }>(
              await route(page, 'publishing', 'updatePost', BOT, post.id, { caption: 'edited' }),
            );
            assert.equal(edited.caption, 'edited');
            assert.deepEqual(data(await route(page, 'publishing', 'deletePost', BOT, post.id)), {
              id: post.id,
            });
            const foreign = await route(page, 'publishing', 'posts', OTHER_BOT);
            assert.equal((foreign as { error: { code: string } }).error.code, 'BotNotAllowed');
          },
        );

        await t.step(`[${kind}] media upload with progress, then its delete`, async () => {
          const size = 3 * 1024 * 1024;
          const { result, progress } = await page.evaluate(
            ([b, h, s]) => pageGlobals().svcTest.upload(b, h, s, 'image/jpeg'),
            [BOT, JPEG_HEAD, size] as const,
          );
          const media = data<{ key: string; bytes: number; contentType: string }>(result);
          assert.equal(media.contentType, 'image/jpeg');
          assert.equal(media.bytes, size);
          assert.ok(progress.length >= 1, 'progress reported');
          const last = progress.at(-1)!;
          assert.ok(last.loaded >= size && last.total >= size, JSON.stringify(last));
          assert.ok(world.storage.buckets.get(BUCKET)?.has(media.key), 'stored under its key');
          const removed = data<{ deleted: boolean }>(
            await route(page, 'publishing', 'deleteMedia', BOT, media.key),
          );
          assert.equal(removed.deleted, true);
          assert.equal(world.storage.buckets.get(BUCKET)?.has(media.key), false);
        });

        await t.step(`[${kind}] register needs the admin session, then answers`, async () => {
          const locked = await route(page, 'publishing', 'register');
          assert.equal((locked as { error: { code: string } }).error.code, 'AdminSessionRequired');
          data(await route(page, 'admin', 'unlock', ADMIN_PASSWORD));
          const registered = data<{ registered: boolean; callbackUrl: string }>(
            await route(page, 'publishing', 'register'),
          );
          assert.equal(registered.registered, true);
          assert.match(registered.callbackUrl, /publish-due/);
          assert.ok(
            !JSON.stringify(registered).includes('publishing-secret'),
            'no secret answered',
          );
        });
      } finally {
        await context.close();
        await gateway.stop();
        await world.stop();
      }
    }
  } finally {
    await browser.close();
    await Deno.remove(dist, { recursive: true });
    await cluster.stop();
  }
});
