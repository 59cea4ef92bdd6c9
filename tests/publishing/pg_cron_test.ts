/**
 * The scheduler on pg_cron itself (Debian's PostgreSQL 15 with postgresql-15-cron, a throwaway
 * cluster): with pg_cron installed, the migrations schedule the claim job and the reaper every
 * minute; registration (re)schedules them; pg_cron's scheduler is running; and the job's own
 * command, run as pg_cron would run it (its minute granularity is too coarse to wait for),
 * claims a due post and calls back through the net.http_post stand-in.
 */
import assert from 'node:assert/strict';
import pg from 'pg';
import { migrate } from '../fixtures/db/postgres.ts';
import { pgCronUnavailable, startPgCronCluster } from '../fixtures/pg_cron/cluster.ts';
import { installPgNetStandin, takeRecordedPosts } from './pg_net_standin.ts';

const unavailable = await pgCronUnavailable();
if (unavailable) console.log(`pg_cron test skipped: ${unavailable}`);

Deno.test({
  name: 'publish queue on pg_cron',
  ignore: unavailable !== null,
  async fn(t) {
    const cluster = await startPgCronCluster();
    const db = new pg.Client({ connectionString: cluster.connectionString });
    db.on('error', () => {});
    try {
      await db.connect();
      await db.query('create extension if not exists pg_cron');
      await migrate(cluster.connectionString);
      await installPgNetStandin(db);

      await t.step(
        'the migrations schedule the claim job and the reaper each minute, the media sweep daily',
        async () => {
          const jobs = await db.query(
            `select jobname, schedule, command, database from cron.job order by jobname`,
          );
          assert.deepEqual(jobs.rows, [
            {
              jobname: 'svc-media-sweep',
              schedule: '17 3 * * *',
              command: 'select public.svc_media_sweep_tick()',
              database: 'svc',
            },
            {
              jobname: 'svc-publish-reap',
              schedule: '* * * * *',
              command: 'select public.svc_posts_reap(10, 3)',
              database: 'svc',
            },
            {
              jobname: 'svc-publish-tick',
              schedule: '* * * * *',
              command: 'select public.svc_publish_tick()',
              database: 'svc',
            },
          ]);
          const scheduler = await db.query(
            `select count(*)::int as n from pg_stat_activity where backend_type = 'pg_cron launcher'`,
          );
          assert.equal(scheduler.rows[0].n, 1, 'pg_cron scheduler running');
        },
      );

      await t.step('registering again keeps one job of each name', async () => {
        const reg = await db.query(
          `select public.svc_publishing_register($1, $2, null) as r`,
          ['https://app.example.test/svc/publishing/publish-due', 'pg-cron-publishing-secret-0123'],
        );
        assert.equal(reg.rows[0].r.scheduled, true);
        const count = await db.query(`select count(*)::int as n from cron.job`);
        assert.equal(count.rows[0].n, 3);
      });

      await t.step('the job claims a due post and calls back through net.http_post', async () => {
        await db.query(
          `insert into public.svc_posts (bot_id, kind, media, scheduled_at, status) values
           ('b00000000000000000000001', 'post', '[{"type":"image","url":"https://x.test/a.jpg"}]',
            now() - interval '1 minute', 'scheduled'),
           ('b00000000000000000000001', 'post', '[{"type":"image","url":"https://x.test/b.jpg"}]',
            now() + interval '1 day', 'scheduled')`,
        );
        const job = await db.query(
          `select command from cron.job where jobname = 'svc-publish-tick'`,
        );
        await db.query(job.rows[0].command);
        const calls = await takeRecordedPosts(db);
        assert.equal(calls.length, 1);
        assert.equal(calls[0].url, 'https://app.example.test/svc/publishing/publish-due');
        assert.equal(calls[0].headers['x-svc-publish-key'], 'pg-cron-publishing-secret-0123');
        const claimed = await db.query(
          `select id, status, attempts from public.svc_posts where status = 'publishing'`,
        );
        assert.equal(claimed.rows.length, 1);
        assert.deepEqual(calls[0].body, { id: claimed.rows[0].id });
        await db.query(job.rows[0].command);
        assert.deepEqual(await takeRecordedPosts(db), [], 'a claimed post is not claimed again');
      });
    } finally {
      await db.end().catch(() => undefined);
      await cluster.stop();
    }
  },
});
