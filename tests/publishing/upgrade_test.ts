/**
 * The publish queue's upgrade migrations on a real PostgreSQL, applied over a database migrated
 * by the files before them, as an existing project meets them:
 * - 20261127000000_svc_publishing_secret.sql: a settings row registered with the earlier SHA-256
 *   publish key loses it (that hash is no credential the gateway accepts): the registration reads
 *   as missing and the ticks call nothing back until POST /register records the secret, which
 *   the scheduler then sends as x-svc-publish-key; re-running every migration keeps it.
 */
import assert from 'node:assert/strict';
import pg from 'pg';
import { migrate, migrationFiles, startPostgres } from '../fixtures/db/postgres.ts';
import { installPgNetStandin, takeRecordedPosts } from './pg_net_standin.ts';

const SECRET_MIGRATION = '20261127000000_svc_publishing_secret.sql';
const CALLBACK = 'https://app.example.test/svc/publishing/publish-due';
const SECRET = 'publishing-secret-of-an-operator-0123';

/** Applies, in order, the bootstrap and every migration file for which `pick` is true. */
async function applyFiles(db: pg.Client, pick: (file: string) => boolean): Promise<void> {
  for (const file of (await migrationFiles()).filter(pick)) {
    await db.query(`begin;\n${await Deno.readTextFile(file)}\n;commit;`);
  }
}

/** True for the files older than `name` (the bootstrap included). */
function before(name: string): (file: string) => boolean {
  return (file) => !file.includes('/supabase/migrations/') || file.split('/').at(-1)! < name;
}

Deno.test('publish queue upgrade migrations', async (t) => {
  const cluster = await startPostgres();
  try {
    await t.step('a row registered with the hash is renewed by the next register', async () => {
      const url = await cluster.createDatabase();
      const db = new pg.Client({ connectionString: url });
      db.on('error', () => {});
      await db.connect();
      try {
        await applyFiles(db, before(SECRET_MIGRATION));
        await installPgNetStandin(db);
        const hash = 'c'.repeat(64);
        await db.query(`select public.svc_publishing_register($1, $2, null)`, [CALLBACK, hash]);
        await db.query(
          `insert into public.svc_posts (bot_id, kind, media, scheduled_at, status) values
           ('b00000000000000000000001', 'post', '[{"type":"image","url":"https://x.test/a.jpg"}]',
            now() - interval '1 minute', 'scheduled')`,
        );
        await applyFiles(db, (file) => file.endsWith(SECRET_MIGRATION));

        const columns = await db.query(
          `select column_name from information_schema.columns
            where table_schema = 'public' and table_name = 'svc_publishing_settings'
            order by column_name`,
        );
        assert.deepEqual(columns.rows.map((r) => r.column_name), [
          'bypass_secret',
          'callback_url',
          'id',
          'publish_secret',
          'registered_at',
        ]);
        const status = await db.query('select public.svc_publishing_status() as s');
        assert.equal(status.rows[0].s.registered, false, 'the hash no longer counts');
        const tick = await db.query('select public.svc_publish_tick() as n');
        assert.equal(tick.rows[0].n, 0);
        assert.deepEqual(await takeRecordedPosts(db), []);
        const sweep = await db.query('select public.svc_media_sweep_tick() as n');
        assert.equal(sweep.rows[0].n, 0);
        const waiting = await db.query(`select status from public.svc_posts`);
        assert.equal(waiting.rows[0].status, 'scheduled', 'not claimed while unregistered');
        await assert.rejects(
          db.query(`select public.svc_post_take($1, $2)`, [crypto.randomUUID(), hash]),
          /Not allowed/,
        );

        await db.query(`select public.svc_publishing_register($1, $2, null)`, [CALLBACK, SECRET]);
        await migrate(url);
        assert.equal(
          (await db.query('select public.svc_publishing_status() as s')).rows[0].s.registered,
          true,
          're-running every migration keeps the registration',
        );
        assert.equal((await db.query('select public.svc_publish_tick() as n')).rows[0].n, 1);
        const calls = await takeRecordedPosts(db);
        assert.equal(calls.length, 1);
        assert.equal(calls[0].url, CALLBACK);
        assert.equal(calls[0].headers['x-svc-publish-key'], SECRET);
        const taken = await db.query(`select public.svc_post_take($1, $2) as p`, [
          calls[0].body.id,
          SECRET,
        ]);
        assert.equal(taken.rows[0].p.id, calls[0].body.id);
      } finally {
        await db.end();
      }
    });
  } finally {
    await cluster.stop();
  }
});
