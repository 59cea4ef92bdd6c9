/**
 * The publish queue's media bucket on a real PostgreSQL with Supabase Storage's bucket table
 * (20261127000100_svc_publishing_bucket.sql): the migrations create `svc-pub-media` with the
 * defaults table's ceiling and types, public; re-running them leaves an operator's changes alone;
 * a database without the storage schema takes every migration. Then the whole path as a user
 * meets it on both hosts, the Storage stand-in serving exactly the database's buckets: register
 * reports the bucket ready, a real PNG is uploaded, fetched by its public URL without any key,
 * and deleted. A missing or private bucket is reported by register (answer and a WARNING line),
 * and an upload to a missing bucket says so.
 */
import assert from 'node:assert/strict';
import pg from 'pg';
import { DEFAULTS } from '../../src/config/defaults.ts';
import { assertNothingReached, assertRefusal } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { unlock } from '../admin/helpers.ts';
import {
  migrate,
  migrationFiles,
  type PostgresCluster,
  startPostgres,
} from '../fixtures/db/postgres.ts';
import { BOT, BUCKET, gatewayOf, pub, startWorld } from './helpers.ts';
import type { Sql } from './pg_net_standin.ts';

/** A 1x1 RGB PNG, whole and valid (signature, IHDR, IDAT, IEND with their CRCs). */
const PNG = Uint8Array.from(
  atob(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC',
  ),
  (c) => c.charCodeAt(0),
);

async function withDatabase<T>(
  cluster: PostgresCluster,
  fn: (db: pg.Client, url: string) => Promise<T>,
): Promise<T> {
  const url = await cluster.createDatabase();
  const db = new pg.Client({ connectionString: url });
  db.on('error', () => {});
  await db.connect();
  try {
    return await fn(db, url);
  } finally {
    await db.end();
  }
}

const bucketRow = async (db: Sql, id = BUCKET) =>
  (await db.query(
    `select id, name, public, file_size_limit::float8 as file_size_limit, allowed_mime_types
       from storage.buckets where id = $1`,
    [id],
  )).rows;

function uploadPng(url: string, bearer: string): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([PNG], { type: 'image/png' }), 'pixel.png');
  return fetch(`${url}/svc/publishing/media?botID=${BOT}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}` },
    body: form,
  });
}

Deno.test('the media bucket migration', async (t) => {
  const cluster = await startPostgres();
  try {
    await t.step('creates svc-pub-media: public, the ceiling and the five types', async () => {
      await withDatabase(cluster, async (db, url) => {
        await migrate(url);
        assert.deepEqual(await bucketRow(db, DEFAULTS.mediaBucket), [{
          id: DEFAULTS.mediaBucket,
          name: DEFAULTS.mediaBucket,
          public: true,
          file_size_limit: DEFAULTS.mediaFileBytes,
          allowed_mime_types: DEFAULTS.mediaTypes.map((t) => t.contentType),
        }]);
      });
    });

    await t.step('re-running leaves an existing bucket as the operator set it', async () => {
      await withDatabase(cluster, async (db, url) => {
        await migrate(url);
        await db.query(`update storage.buckets set file_size_limit = 1000 where id = $1`, [BUCKET]);
        await migrate(url);
        const rows = await bucketRow(db);
        assert.equal(rows.length, 1);
        assert.equal(rows[0].file_size_limit, 1000);
      });
    });

    await t.step('a database without the storage schema takes every migration', async () => {
      await withDatabase(cluster, async (db) => {
        const [bootstrap, ...migrations] = await migrationFiles();
        await db.query(await Deno.readTextFile(bootstrap));
        await db.query('drop schema storage cascade');
        for (const file of migrations) {
          await db.query(`begin;\n${await Deno.readTextFile(file)}\n;commit;`);
        }
        const schema = await db.query(`select to_regclass('storage.buckets') as t`);
        assert.equal(schema.rows[0].t, null, 'no storage schema was made');
        const tables = await db.query(`select to_regclass('public.svc_media') as t`);
        assert.equal(tables.rows[0].t, 'svc_media');
      });
    });
  } finally {
    await cluster.stop();
  }
});

for (const kind of HOSTS) {
  Deno.test(`media bucket, register to delete (${kind} host)`, async (t) => {
    const cluster = await startPostgres();
    const world = await startWorld(cluster);
    const gw = await gatewayOf(kind, world);
    const register = async (url: string) => {
      const cookie = await unlock(url);
      const res = await pub(url, '/register', {
        method: 'POST',
        headers: { cookie, 'x-svc-admin': '1' },
      });
      assert.equal(res.status, 200);
      return (await res.json()).mediaBucket;
    };
    try {
      await t.step('migrations applied: register finds the bucket ready', async () => {
        assert.deepEqual(await register(gw.url), { name: BUCKET, state: 'ready' });
        assert.ok(!gw.lines.some((l) => l.includes('media bucket')), gw.lines.join('\n'));
      });

      await t.step('a real PNG: upload, fetch by its public URL, delete', async () => {
        const res = await uploadPng(gw.url, world.owner);
        assert.equal(res.status, 201, await res.clone().text());
        const object = await res.json();
        assert.equal(object.contentType, 'image/png');
        assert.equal(object.bytes, PNG.byteLength);
        assert.equal(
          object.url,
          `${world.storage.url}/storage/v1/object/public/${BUCKET}/${object.key}`,
        );
        const fetched = await fetch(object.url); // no key: what the upstream does
        assert.equal(fetched.status, 200);
        assert.equal(fetched.headers.get('content-type'), 'image/png');
        assert.deepEqual(new Uint8Array(await fetched.arrayBuffer()), PNG);
        const removed = await fetch(
          `${gw.url}/svc/publishing/media?botID=${BOT}&key=${encodeURIComponent(object.key)}`,
          { method: 'DELETE', headers: { authorization: `Bearer ${world.owner}` } },
        );
        assert.deepEqual(await removed.json(), { key: object.key, deleted: true });
        const gone = await fetch(object.url);
        assert.equal(gone.status, 400);
        await gone.body?.cancel();
        const booked = await world.backend.seed.query(
          'select count(*)::int as n from public.svc_media',
        );
        assert.equal(booked.rows[0].n, 0);
      });

      await t.step('Storage not answering: register says unreachable, and answers', async () => {
        world.storage.switches.stallBucket = true;
        try {
          assert.deepEqual(await register(gw.url), { name: BUCKET, state: 'unreachable' });
          assert.ok(
            gw.lines.some((l) => /WARNING: the media bucket svc-pub-media could not/.test(l)),
          );
        } finally {
          world.storage.switches.stallBucket = false;
        }
      });

      await t.step('a private bucket is reported by register', async () => {
        await world.backend.seed.query(`update storage.buckets set public = false where id = $1`, [
          BUCKET,
        ]);
        assert.deepEqual(await register(gw.url), { name: BUCKET, state: 'private' });
        assert.ok(
          gw.lines.some((l) => /WARNING: the media bucket svc-pub-media is not public/.test(l)),
        );
        await world.backend.seed.query(`update storage.buckets set public = true where id = $1`, [
          BUCKET,
        ]);
      });

      await t.step(
        'another bucket name that does not exist: register says so, uploads too',
        async () => {
          const other = await gatewayOf(kind, world, { PUBLISHING_MEDIA_BUCKET: 'app-media' });
          try {
            assert.deepEqual(await register(other.url), { name: 'app-media', state: 'missing' });
            assert.ok(
              other.lines.some((l) => /WARNING: the media bucket app-media does not exist/.test(l)),
              other.lines.join('\n'),
            );
            await assertNothingReached(world.sandbox, async () => {
              const message = await assertRefusal(
                await uploadPng(other.url, world.owner),
                502,
                'MediaUploadFailed',
              );
              assert.match(message, /media bucket app-media does not exist/);
            });
            const booked = await world.backend.seed.query(
              'select count(*)::int as n from public.svc_media',
            );
            assert.equal(booked.rows[0].n, 0, 'the reservation was dropped');
          } finally {
            await other.stop();
          }
        },
      );
    } finally {
      await gw.stop();
      await world.stop();
      await cluster.stop();
    }
  });
}
