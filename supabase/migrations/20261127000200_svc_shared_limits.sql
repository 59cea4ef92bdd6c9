-- svc shared limits: tenant limits and revocations that hold across every gateway process sharing
-- this database (docs/operations.md "Limits across processes"; SPEC "Ceilings": requests per minute
-- and live sockets per tenant; "WebSocket close codes" 4401 Unauthorized). Service-role only: the
-- gateway calls these with BACKEND_SERVICE_ROLE_KEY.
--
--  * svc_tenant_buckets: one token bucket per tenant key (a minute's burst, refilled
--    continuously). Processes take tokens in leases (svc_tenant_take), never one per request.
--  * svc_socket_leases: each process's live-socket count per tenant, with an expiry the process
--    renews once a second (svc_limits_sync); a process that dies stops renewing and its counts
--    lapse. svc_socket_open admits one socket against the sum of the live counts.
--  * svc_revocations: a feed of (account, bot) pairs taken back, written by triggers on
--    svc_bot_grants, svc_members and svc_bots (whatever path deleted the row), read by every
--    process through svc_limits_sync after its cursor. Rows older than a day are pruned.
--
-- Safe to re-run. The tables are reachable only through the functions below.

create table if not exists public.svc_tenant_buckets (
  tenant_key text primary key,
  tokens double precision not null,
  refilled_at timestamptz not null default clock_timestamp()
);
create index if not exists svc_tenant_buckets_refilled_at_idx
  on public.svc_tenant_buckets (refilled_at);

create table if not exists public.svc_socket_leases (
  tenant_key text not null,
  process_id text not null,
  sockets integer not null,
  expires_at timestamptz not null,
  primary key (tenant_key, process_id)
);
create index if not exists svc_socket_leases_process_idx on public.svc_socket_leases (process_id);
create index if not exists svc_socket_leases_expires_at_idx
  on public.svc_socket_leases (expires_at);

create table if not exists public.svc_revocations (
  id bigint generated always as identity primary key,
  user_id uuid, -- null: every account (the bot itself was removed)
  bot_id text not null, -- the upstream bot id, as svc_my_bot_ids answers it
  revoked_at timestamptz not null default now()
);
create index if not exists svc_revocations_revoked_at_idx on public.svc_revocations (revoked_at);

alter table public.svc_tenant_buckets enable row level security;
alter table public.svc_socket_leases enable row level security;
alter table public.svc_revocations enable row level security;

revoke all on table public.svc_tenant_buckets, public.svc_socket_leases, public.svc_revocations
  from public, anon, authenticated, service_role;

-- svc_limits_check_key(p_key, p_what): PT422 hint 'bad_key' unless 1-100 characters.
create or replace function public.svc_limits_check_key(p_key text, p_what text)
returns void
language plpgsql
immutable
security definer
set search_path = ''
as $$
begin
  if p_key is null or length(p_key) = 0 or length(p_key) > 100 then
    raise exception '% must be 1-100 characters', p_what using errcode = 'PT422', hint = 'bad_key';
  end if;
end;
$$;

-- svc_tenant_take(p_tenant, p_want, p_per_minute, p_spent): takes up to p_want (0 or more) tokens
-- from the tenant's bucket and answers how many it got (0 when the bucket is dry). The bucket
-- holds p_per_minute tokens at most (a minute's burst; a new bucket starts full) and refills
-- continuously at p_per_minute a minute. p_spent (0 or more) is first taken from the bucket
-- without being granted: the requests a process admitted on its own limits while this
-- database did not answer (reconciliation; the bucket floors at 0). The row is locked for the
-- call, so concurrent takers never share a token. Buckets untouched for ten minutes (full
-- again anyway) are pruned by svc_limits_sync.
create or replace function public.svc_tenant_take(
  p_tenant text,
  p_want integer,
  p_per_minute integer,
  p_spent integer default 0
)
returns integer
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_size double precision;
  v_row public.svc_tenant_buckets;
  v_tokens double precision;
  v_granted integer;
begin
  perform public.svc_limits_check_key(p_tenant, 'The tenant key');
  if p_want is null or p_want < 0 or p_per_minute is null or p_per_minute < 1
     or coalesce(p_spent, 0) < 0 then
    raise exception 'want and spent 0 or more, per minute 1 or more'
      using errcode = 'PT422', hint = 'bad_amount';
  end if;
  v_size := p_per_minute;
  insert into public.svc_tenant_buckets (tenant_key, tokens, refilled_at)
    values (p_tenant, v_size, v_now)
    on conflict (tenant_key) do nothing;
  select * into v_row from public.svc_tenant_buckets where tenant_key = p_tenant for update;
  v_tokens := least(
    v_size,
    v_row.tokens + greatest(0, extract(epoch from (v_now - v_row.refilled_at))) * v_size / 60
  );
  v_tokens := greatest(0, v_tokens - coalesce(p_spent, 0));
  v_granted := least(p_want, floor(v_tokens))::integer;
  update public.svc_tenant_buckets
     set tokens = v_tokens - v_granted, refilled_at = v_now
   where tenant_key = p_tenant;
  return v_granted;
end;
$$;

-- svc_socket_open(p_process, p_tenant, p_local, p_max, p_lease_ms): admits one live socket of
-- the tenant for the process, which holds p_local (0-100000) of them already (the process's own
-- word: it opens one socket of a tenant at a time). Answers false when p_local plus the live
-- counts of every other process (expired leases not counted) reach p_max; else records the
-- process's count as p_local + 1, valid p_lease_ms (1000-600000) from now, and answers true.
-- Serialised per tenant by a transaction-scoped advisory lock.
create or replace function public.svc_socket_open(
  p_process text,
  p_tenant text,
  p_local integer,
  p_max integer,
  p_lease_ms integer
)
returns boolean
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_others integer;
  v_own integer;
begin
  perform public.svc_limits_check_key(p_process, 'The process id');
  perform public.svc_limits_check_key(p_tenant, 'The tenant key');
  if p_local is null or p_local < 0 or p_local > 100000 or p_max is null or p_max < 1
     or p_lease_ms is null or p_lease_ms < 1000 or p_lease_ms > 600000 then
    raise exception 'local 0-100000, max >= 1, lease 1000-600000 ms'
      using errcode = 'PT422', hint = 'bad_amount';
  end if;
  perform pg_advisory_xact_lock(hashtextextended('svc_socket_open:' || p_tenant, 0));
  select coalesce(sum(l.sockets), 0)::integer into v_others
    from public.svc_socket_leases l
   where l.tenant_key = p_tenant and l.process_id <> p_process and l.expires_at > v_now;
  v_own := p_local;
  if v_others + v_own >= p_max then
    return false;
  end if;
  insert into public.svc_socket_leases (tenant_key, process_id, sockets, expires_at)
    values (p_tenant, p_process, v_own + 1, v_now + make_interval(secs => p_lease_ms / 1000.0))
    on conflict (tenant_key, process_id) do update
      set sockets = excluded.sockets, expires_at = excluded.expires_at;
  return true;
end;
$$;

-- svc_limits_sync(p_process, p_sockets, p_lease_ms, p_after): a process's once-a-second call.
--  * p_sockets: a JSON object {tenant key: live sockets} (at most 10000 keys, counts 0-100000;
--    else PT422 'bad_sockets') replacing every row of the process: keys with a count above 0
--    are renewed for p_lease_ms (1000-600000), the process's other rows are deleted.
--  * p_after: the revocation cursor (null: the process starts; it gets the current cursor and
--    no rows). Answers {"cursor": <id>, "revocations": [{"userId": <uuid or null>,
--    "botId": <text>}, ...]} with at most 1000 rows after p_after, in id order.
-- Also prunes (up to 1000 rows each) leases expired over a minute ago, buckets untouched for
-- ten minutes and revocations older than a day.
create or replace function public.svc_limits_sync(
  p_process text,
  p_sockets jsonb,
  p_lease_ms integer,
  p_after bigint
)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_cursor bigint;
  v_rows jsonb;
begin
  perform public.svc_limits_check_key(p_process, 'The process id');
  if p_sockets is null or jsonb_typeof(p_sockets) <> 'object'
     or (select count(*) from jsonb_object_keys(p_sockets)) > 10000
     or exists (
       select 1 from jsonb_each(p_sockets) e
        where jsonb_typeof(e.value) <> 'number' or length(e.key) not between 1 and 100
           or (e.value)::numeric not between 0 and 100000
     ) then
    raise exception 'p_sockets: {tenant key: count}, at most 10000 keys'
      using errcode = 'PT422', hint = 'bad_sockets';
  end if;
  if p_lease_ms is null or p_lease_ms < 1000 or p_lease_ms > 600000 then
    raise exception 'lease 1000-600000 ms' using errcode = 'PT422', hint = 'bad_amount';
  end if;
  delete from public.svc_socket_leases l
   where l.process_id = p_process
     and not exists (
       select 1 from jsonb_each(p_sockets) e
        where e.key = l.tenant_key and (e.value)::numeric > 0
     );
  insert into public.svc_socket_leases (tenant_key, process_id, sockets, expires_at)
    select e.key, p_process, (e.value)::numeric::integer,
           v_now + make_interval(secs => p_lease_ms / 1000.0)
      from jsonb_each(p_sockets) e
     where (e.value)::numeric > 0
    on conflict (tenant_key, process_id) do update
      set sockets = excluded.sockets, expires_at = excluded.expires_at;

  delete from public.svc_socket_leases where ctid in (
    select ctid from public.svc_socket_leases
     where expires_at < v_now - interval '1 minute' limit 1000);
  delete from public.svc_tenant_buckets where ctid in (
    select ctid from public.svc_tenant_buckets
     where refilled_at < v_now - interval '10 minutes' limit 1000);
  delete from public.svc_revocations where ctid in (
    select ctid from public.svc_revocations
     where revoked_at < v_now - interval '1 day' limit 1000);

  if p_after is null then
    select coalesce(max(id), 0) into v_cursor from public.svc_revocations;
    return jsonb_build_object('cursor', v_cursor, 'revocations', '[]'::jsonb);
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('userId', r.user_id, 'botId', r.bot_id)
                            order by r.id), '[]'::jsonb),
         coalesce(max(r.id), p_after)
    into v_rows, v_cursor
    from (select * from public.svc_revocations where id > p_after order by id limit 1000) r;
  return jsonb_build_object('cursor', v_cursor, 'revocations', v_rows);
end;
$$;

-- Triggers feeding svc_revocations: a grant deleted (the account loses the bot), a membership
-- deleted (the account loses every bot of the workspace), a bot deleted (every account loses it).
create or replace function public.svc_revocation_on_grant_delete()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  insert into public.svc_revocations (user_id, bot_id)
    select old.user_id, b.upstream_bot_id from public.svc_bots b
     where b.id = old.bot_id and b.upstream_bot_id is not null;
  return null;
end;
$$;

create or replace function public.svc_revocation_on_member_delete()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  insert into public.svc_revocations (user_id, bot_id)
    select old.user_id, b.upstream_bot_id from public.svc_bots b
     where b.workspace_id = old.workspace_id and b.upstream_bot_id is not null;
  return null;
end;
$$;

create or replace function public.svc_revocation_on_bot_delete()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if old.upstream_bot_id is not null then
    insert into public.svc_revocations (user_id, bot_id) values (null, old.upstream_bot_id);
  end if;
  return null;
end;
$$;

drop trigger if exists svc_revocation_on_grant_delete on public.svc_bot_grants;
create trigger svc_revocation_on_grant_delete after delete on public.svc_bot_grants
  for each row execute function public.svc_revocation_on_grant_delete();
drop trigger if exists svc_revocation_on_member_delete on public.svc_members;
create trigger svc_revocation_on_member_delete after delete on public.svc_members
  for each row execute function public.svc_revocation_on_member_delete();
drop trigger if exists svc_revocation_on_bot_delete on public.svc_bots;
create trigger svc_revocation_on_bot_delete after delete on public.svc_bots
  for each row execute function public.svc_revocation_on_bot_delete();

revoke all on function public.svc_limits_check_key(text, text)
  from public, anon, authenticated, service_role;
revoke all on function public.svc_tenant_take(text, integer, integer, integer)
  from public, anon, authenticated, service_role;
revoke all on function public.svc_socket_open(text, text, integer, integer, integer)
  from public, anon, authenticated, service_role;
revoke all on function public.svc_limits_sync(text, jsonb, integer, bigint)
  from public, anon, authenticated, service_role;
revoke all on function public.svc_revocation_on_grant_delete()
  from public, anon, authenticated, service_role;
revoke all on function public.svc_revocation_on_member_delete()
  from public, anon, authenticated, service_role;
revoke all on function public.svc_revocation_on_bot_delete()
  from public, anon, authenticated, service_role;

grant execute on function public.svc_tenant_take(text, integer, integer, integer) to service_role;
grant execute on function public.svc_socket_open(text, text, integer, integer, integer)
  to service_role;
grant execute on function public.svc_limits_sync(text, jsonb, integer, bigint) to service_role;
