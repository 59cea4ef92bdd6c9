/**
 * The PostgREST-compatible fixture keeps PostgREST's documented behaviour for RPC: result
 * shapes, argument matching, error statuses and bodies, JWT handling, transaction per call with
 * role and claims; and its test switches (slow, 500, override, unreachable) and call counters.
 */
import assert from 'node:assert/strict';
import { type Backend, startBackend } from '../fixtures/db/backend.ts';
import { type PostgresCluster, startPostgres } from '../fixtures/db/postgres.ts';

/** Test-only functions, created as the superuser (Supabase's default grants apply to them). */
const TEST_FUNCTIONS = `
create function public.t_scalar(p_n int) returns int language sql as $$ select p_n + 1 $$;
create function public.t_null() returns text language sql as $$ select null::text $$;
create function public.t_array() returns text[] language sql as $$ select array['a', 'b'] $$;
create function public.t_setof() returns setof int language sql
  as $$ select * from generate_series(1, 3) $$;
create function public.t_setof_empty() returns setof int language sql
  as $$ select 1 where false $$;
create function public.t_table(p_ids text[]) returns table (id text, n int) language sql
  as $$ select x, length(x) from unnest(p_ids) x $$;
create function public.t_composite(out a int, out b text) language sql
  as $$ select 1, 'one' $$;
create function public.t_void() returns void language sql as $$ select $$;
create function public.t_json(p jsonb) returns jsonb language sql as $$ select p $$;
create function public.t_default(a int, b int default 10) returns int language sql
  as $$ select a + b $$;
create function public.t_over(a int) returns int language sql as $$ select a $$;
create function public.t_over(a int, b int default 1) returns int language sql as $$ select a $$;
create function public.t_raise(p_code text) returns void language plpgsql as $$
begin
  raise exception 'raised %', p_code using errcode = p_code, detail = 'd', hint = 'h';
end $$;
create function public.t_context() returns jsonb language sql stable as $$
  select jsonb_build_object(
    'current_user', current_user, 'uid', auth.uid(), 'role', auth.role(), 'jwt', auth.jwt(),
    'sub_setting', current_setting('request.jwt.claim.sub', true),
    'method', current_setting('request.method', true),
    'path', current_setting('request.path', true),
    'apikey_header', current_setting('request.headers', true)::jsonb ? 'apikey')
$$;
create table public.t_log (n int);
create function public.t_read_only_stable() returns text language sql stable
  as $$ select current_setting('transaction_read_only') $$;
create function public.t_read_only_volatile() returns text language sql volatile
  as $$ select current_setting('transaction_read_only') $$;
create function public.t_write_then_fail() returns void language plpgsql as $$
begin
  insert into public.t_log values (2);
  raise exception 'after write';
end $$;
create function public.t_private() returns int language sql as $$ select 1 $$;
revoke execute on function public.t_private() from public, anon, authenticated;
`;

async function withBackend(cluster: PostgresCluster, fn: (b: Backend) => Promise<void>) {
  const backend = await startBackend(cluster);
  try {
    await backend.seed.query(TEST_FUNCTIONS);
    await fn(backend);
  } finally {
    await backend.stop();
  }
}

async function userToken(b: Backend): Promise<string> {
  return await b.rest.mintUserToken(await b.seed.createUser(`${crypto.randomUUID()}@x.test`));
}

Deno.test('PostgREST-compatible fixture', async (t) => {
  const cluster = await startPostgres();
  try {
    await t.step('results are shaped as PostgREST shapes them', async () => {
      await withBackend(cluster, async (b) => {
        const jwt = await userToken(b);
        const cases: [string, Record<string, unknown>, number, unknown][] = [
          ['t_scalar', { p_n: 41 }, 200, 42],
          ['t_null', {}, 200, null],
          ['t_array', {}, 200, ['a', 'b']],
          ['t_setof', {}, 200, [1, 2, 3]],
          ['t_setof_empty', {}, 200, []],
          ['t_table', { p_ids: ['ab', 'c'] }, 200, [{ id: 'ab', n: 2 }, { id: 'c', n: 1 }]],
          ['t_composite', {}, 200, { a: 1, b: 'one' }],
          ['t_void', {}, 204, null],
          ['t_json', { p: { x: [1, { y: null }] } }, 200, { x: [1, { y: null }] }],
          ['t_default', { a: 1 }, 200, 11],
          ['t_default', { a: 1, b: 2 }, 200, 3],
        ];
        for (const [fn, args, status, body] of cases) {
          const answer = await b.rpc(fn, args, jwt);
          assert.equal(answer.status, status, fn);
          assert.deepEqual(answer.body, body, fn);
        }
      });
    });

    await t.step('functions are found by name and argument names', async () => {
      await withBackend(cluster, async (b) => {
        const jwt = await userToken(b);
        const unknown = await b.rpc('t_nope', { a: 1 }, jwt);
        assert.equal(unknown.status, 404);
        assert.equal((unknown.body as { code: string }).code, 'PGRST202');
        const wrongArg = await b.rpc('t_scalar', { n: 1 }, jwt);
        assert.equal(wrongArg.status, 404);
        assert.equal((wrongArg.body as { code: string }).code, 'PGRST202');
        const missingArg = await b.rpc('t_default', { b: 1 }, jwt);
        assert.equal(missingArg.status, 404);
        const ambiguous = await b.rpc('t_over', { a: 1 }, jwt);
        assert.equal(ambiguous.status, 300);
        assert.equal((ambiguous.body as { code: string }).code, 'PGRST203');
        assert.equal((await b.rpc('t_over', { a: 1, b: 2 }, jwt)).status, 200);
      });
    });

    await t.step(
      'SQLSTATEs map to PostgREST statuses, body {code,details,hint,message}',
      async () => {
        await withBackend(cluster, async (b) => {
          const jwt = await userToken(b);
          const table: [string, number][] = [
            ['P0001', 400],
            ['PT401', 401],
            ['PT403', 403],
            ['PT404', 404],
            ['PT422', 422],
            ['PT418', 418],
            ['23505', 409],
            ['23503', 409],
            ['22023', 400],
            ['22P02', 400],
            ['42883', 404],
            ['42P01', 404],
            ['40001', 500],
            ['53300', 503],
            ['XX000', 500],
            ['P0002', 500],
            ['25006', 405],
            ['0P000', 403],
            ['42P17', 500],
            ['42703', 400],
          ];
          for (const [code, status] of table) {
            const answer = await b.rpc('t_raise', { p_code: code }, jwt);
            assert.equal(answer.status, status, code);
            assert.deepEqual(answer.body, {
              code,
              details: 'd',
              hint: 'h',
              message: `raised ${code}`,
            });
          }
        });
      },
    );

    await t.step('permission denied: 403 for a signed-in role, 401 for anon', async () => {
      await withBackend(cluster, async (b) => {
        const asUser = await b.rpc('t_private', {}, await userToken(b));
        assert.equal(asUser.status, 403);
        assert.equal((asUser.body as { code: string }).code, '42501');
        const asAnon = await b.rpc('t_private', {}, b.rest.anonKey);
        assert.equal(asAnon.status, 401);
        assert.equal((asAnon.body as { code: string }).code, '42501');
      });
    });

    await t.step('each call runs as the JWT role with the claims set', async () => {
      await withBackend(cluster, async (b) => {
        const user = await b.seed.createUser('ctx@example.test');
        const jwt = await b.rest.mintUserToken(user);
        const answer = await b.rpc('t_context', {}, jwt);
        assert.equal(answer.status, 200);
        const ctx = answer.body as Record<string, unknown> & { jwt: Record<string, unknown> };
        assert.equal(ctx.current_user, 'authenticated');
        assert.equal(ctx.uid, user);
        assert.equal(ctx.role, 'authenticated');
        assert.equal(ctx.sub_setting, user);
        assert.equal(ctx.jwt.sub, user);
        assert.equal(ctx.jwt.iss, `${b.rest.url}/auth/v1`);
        assert.equal(ctx.method, 'POST');
        assert.equal(ctx.path, '/rest/v1/rpc/t_context');
        assert.equal(ctx.apikey_header, true);
        const service = await b.rpc('t_context', {}, b.rest.serviceRoleKey, b.rest.serviceRoleKey);
        assert.equal((service.body as { current_user: string }).current_user, 'service_role');
        const anon = await b.rpc('t_context', {});
        assert.equal((anon.body as { current_user: string }).current_user, 'anon');
      });
    });

    await t.step(
      'one transaction per call: read-only when stable, rolled back on error',
      async () => {
        await withBackend(cluster, async (b) => {
          const jwt = await userToken(b);
          assert.equal((await b.rpc('t_read_only_stable', {}, jwt)).body, 'on');
          assert.equal((await b.rpc('t_read_only_volatile', {}, jwt)).body, 'off');
          const failed = await b.rpc('t_write_then_fail', {}, jwt);
          assert.equal(failed.status, 400);
          const rows = await b.seed.query('select * from public.t_log');
          assert.equal(rows.rowCount, 0);
        });
      },
    );

    await t.step('JWT: bad signature PGRST301, expired PGRST303, malformed 401', async () => {
      await withBackend(cluster, async (b) => {
        const jwt = await userToken(b);
        const [head, body] = jwt.split('.');
        const forged = await b.rpc('t_scalar', { p_n: 1 }, `${head}.${body}.AAAA`);
        assert.equal(forged.status, 401);
        assert.equal((forged.body as { code: string }).code, 'PGRST301');
        const user = await b.seed.createUser('late@example.test');
        const expired = await b.rest.mintUserToken(user, { expSeconds: -120 });
        const late = await b.rpc('t_scalar', { p_n: 1 }, expired);
        assert.equal(late.status, 401);
        assert.deepEqual(late.body, {
          code: 'PGRST303',
          details: null,
          hint: null,
          message: 'JWT expired',
        });
        assert.equal((await b.rpc('t_scalar', { p_n: 1 }, 'not-a-jwt')).status, 401);
      });
    });

    await t.step('the API gateway wants a known apikey; bodies must be JSON objects', async () => {
      await withBackend(cluster, async (b) => {
        const url = `${b.rest.url}/rest/v1/rpc/t_scalar`;
        const post = (headers: Record<string, string>, body: string) =>
          fetch(url, { method: 'POST', headers, body }).then(async (r) => ({
            status: r.status,
            body: await r.json(),
          }));
        const noKey = await post({ 'content-type': 'application/json' }, '{"p_n":1}');
        assert.equal(noKey.status, 401);
        assert.equal(noKey.body.message, 'No API key found in request');
        const badKey = await post({ apikey: 'nope' }, '{"p_n":1}');
        assert.equal(badKey.status, 401);
        assert.equal(badKey.body.message, 'Invalid API key');
        const badJson = await post({ apikey: b.rest.anonKey }, '{"p_n":');
        assert.equal(badJson.status, 400);
        assert.equal(badJson.body.code, 'PGRST102');
        const array = await post({ apikey: b.rest.anonKey }, '[1]');
        assert.equal(array.status, 400);
      });
    });

    await t.step('calls are counted per function, whatever the answer', async () => {
      await withBackend(cluster, async (b) => {
        const jwt = await userToken(b);
        assert.equal(b.rest.calls.size, 0);
        await b.rpc('t_scalar', { p_n: 1 }, jwt);
        await b.rpc('t_scalar', { p_n: 1 }, 'bad');
        await b.rpc('t_nope', {}, jwt);
        assert.deepEqual([...b.rest.calls].sort(), [['t_nope', 1], ['t_scalar', 2]]);
      });
    });

    await t.step('switches: fail500 and override answer without the database', async () => {
      await withBackend(cluster, async (b) => {
        const jwt = await userToken(b);
        b.rest.switches.fail500 = true;
        const failed = await b.rpc('t_write_then_fail', {}, jwt);
        assert.equal(failed.status, 500);
        b.rest.switches.fail500 = false;
        b.rest.switches.override = (fn) =>
          fn === 't_array' ? Response.json({ not: 'an array' }) : undefined;
        assert.deepEqual((await b.rpc('t_array', {}, jwt)).body, { not: 'an array' });
        assert.equal((await b.rpc('t_scalar', { p_n: 1 }, jwt)).body, 2);
        b.rest.switches.override = null;
        assert.deepEqual((await b.rpc('t_array', {}, jwt)).body, ['a', 'b']);
        assert.equal(b.rest.calls.get('t_array'), 2);
      });
    });

    await t.step('switches: unreachable refuses connections until brought back', async () => {
      await withBackend(cluster, async (b) => {
        const jwt = await userToken(b);
        assert.equal((await b.rpc('t_scalar', { p_n: 1 }, jwt)).status, 200);
        await b.rest.switches.setUnreachable(true);
        assert.equal(b.rest.switches.unreachable, true);
        await assert.rejects(b.rpc('t_scalar', { p_n: 1 }, jwt), TypeError);
        await b.rest.switches.setUnreachable(false);
        assert.equal((await b.rpc('t_scalar', { p_n: 1 }, jwt)).status, 200);
        assert.equal(b.rest.calls.get('t_scalar'), 2);
      });
    });

    await t.step('switches: a slow endpoint holds the answer; the caller can give up', async () => {
      await withBackend(cluster, async (b) => {
        const jwt = await userToken(b);
        b.rest.switches.delayMs = 60_000;
        const gaveUp = new AbortController();
        const pending = fetch(`${b.rest.url}/rest/v1/rpc/t_scalar`, {
          method: 'POST',
          headers: { apikey: b.rest.anonKey, authorization: `Bearer ${jwt}` },
          body: '{"p_n":1}',
          signal: gaveUp.signal,
        });
        while (!b.rest.calls.get('t_scalar')) await new Promise((r) => setTimeout(r, 5));
        gaveUp.abort();
        await assert.rejects(pending, (e: Error) => e.name === 'AbortError');
        // stop() (in withBackend) cuts the delay short instead of waiting a minute
      });
    });
  } finally {
    await cluster.stop();
  }
});
