-- svc admin: what the operator admin panel (/svc/admin) keeps in the backend (SPEC "Admin panel:
-- /svc/admin", "Authentication" 4). Service-role only: the gateway calls these functions with
-- BACKEND_SERVICE_ROLE_KEY after checking the svc_admin cookie itself.
--
--  * svc_admin_throttle: the shared password-throttle row per client key, so several gateway
--    processes spend one budget (svc_admin_throttle_take / svc_admin_throttle_clear).
--  * svc_admin_bots: the bots the panel created upstream (recorded after the upstream create).
--  * tenants and grants over the tables of 20261122190000_svc_tenancy.sql.
--
-- Safe to re-run. Tables are reachable only through the svc_* functions below.

create table if not exists public.svc_admin_throttle (
  client_key text primary key,
  failures integer not null default 0,
  blocked_until timestamptz,
  updated_at timestamptz not null default now()
);

create table if not exists public.svc_admin_bots (
  upstream_bot_id text primary key,
  upstream_workspace_id text not null,
  name text not null,
  created_at timestamptz not null default now()
);

alter table public.svc_admin_throttle enable row level security;
alter table public.svc_admin_bots enable row level security;

revoke all on table public.svc_admin_throttle, public.svc_admin_bots
  from public, anon, authenticated, service_role;

-- svc_admin_throttle_take(p_key, p_free, p_base_ms, p_cap_ms): reserves one password attempt for
-- the client key, atomically (the row is locked by the upsert). Answers 0 when the attempt may
-- go ahead (it is counted as a failure until svc_admin_throttle_clear), else the ms left to wait
-- (nothing counted). After the attempt that makes `failures` reach p_free, and every later one,
-- the key waits min(p_cap_ms, p_base_ms * 2^(failures - p_free)). Rows idle for a day are pruned
-- (up to 100 per call). p_key: 1-200 characters (PT422 hint 'bad_key').
create or replace function public.svc_admin_throttle_take(
  p_key text,
  p_free integer,
  p_base_ms integer,
  p_cap_ms integer
)
returns integer
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_row public.svc_admin_throttle;
  v_wait double precision;
begin
  if p_key is null or length(p_key) = 0 or length(p_key) > 200 then
    raise exception 'The throttle key must be 1-200 characters'
      using errcode = 'PT422', hint = 'bad_key';
  end if;
  select * into v_row from public.svc_admin_throttle where client_key = p_key for update;
  if found and v_row.blocked_until is not null and v_row.blocked_until > now() then
    return greatest(1, ceil(extract(epoch from (v_row.blocked_until - now())) * 1000))::integer;
  end if;
  insert into public.svc_admin_throttle as t (client_key, failures, updated_at)
    values (p_key, 1, now())
    on conflict (client_key) do update
      set failures = t.failures + 1, updated_at = now()
    returning * into v_row;
  if v_row.failures >= greatest(p_free, 1) then
    v_wait := least(
      greatest(p_cap_ms, 0)::double precision,
      greatest(p_base_ms, 0)::double precision * power(2, least(v_row.failures - greatest(p_free, 1), 40))
    );
    update public.svc_admin_throttle
       set blocked_until = now() + make_interval(secs => v_wait / 1000)
     where client_key = p_key;
  end if;
  delete from public.svc_admin_throttle
   where client_key in (
     select client_key from public.svc_admin_throttle
      where updated_at < now() - interval '1 day' limit 100
   );
  return 0;
end;
$$;

-- svc_admin_throttle_clear(p_key): a right password forgets the key's failures.
create or replace function public.svc_admin_throttle_clear(p_key text)
returns void
language sql
volatile
security definer
set search_path = ''
as $$
  delete from public.svc_admin_throttle where client_key = p_key;
$$;

-- svc_admin_tenants(): the app's accounts (auth.users, oldest first, at most 1000) with their
-- workspaces (role) and the bots of each (row id, name, upstream id, and whether this account
-- holds a grant on it). Answers {"accounts": [...], "truncated": boolean}.
create or replace function public.svc_admin_tenants()
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  with accounts as (
    select u.id, u.email, u.created_at
      from auth.users u
     order by u.created_at, u.id
     limit 1001
  )
  select jsonb_build_object(
    'truncated', (select count(*) from accounts) > 1000,
    'accounts', coalesce((
      select jsonb_agg(jsonb_build_object(
        'userId', a.id,
        'email', a.email,
        'createdAt', a.created_at,
        'workspaces', coalesce((
          select jsonb_agg(jsonb_build_object(
            'id', w.id,
            'name', w.name,
            'role', m.role,
            'bots', coalesce((
              select jsonb_agg(jsonb_build_object(
                'id', b.id,
                'name', b.name,
                'upstreamBotId', b.upstream_bot_id,
                'granted', exists (
                  select 1 from public.svc_bot_grants g where g.bot_id = b.id and g.user_id = a.id
                )
              ) order by b.created_at, b.id)
              from public.svc_bots b where b.workspace_id = w.id
            ), '[]'::jsonb)
          ) order by w.created_at, w.id)
          from public.svc_members m
          join public.svc_workspaces w on w.id = m.workspace_id
         where m.user_id = a.id
        ), '[]'::jsonb)
      ) order by a.created_at, a.id)
      from (select * from accounts order by created_at, id limit 1000) a
    ), '[]'::jsonb)
  );
$$;

-- svc_admin_grant(p_bot_id, p_user_id): gives the bot (its upstream id) to the account. The bot
-- must be recorded: a svc_bots row, or a panel-created svc_admin_bots row, which is then added
-- to the account's one workspace (none: PT409 'tenant_not_found'; several: PT409
-- 'tenant_ambiguous'). No such bot: PT404 'bot_not_found'; no such account (or a malformed id):
-- PT404 'member_not_found'. An account outside the bot's workspace joins it as 'member' (a
-- member reaches only its granted bots). Answers {"botId", "userId", "workspaceId", "granted"}.
create or replace function public.svc_admin_grant(p_bot_id text, p_user_id text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_uid uuid;
  v_bot public.svc_bots;
  v_admin public.svc_admin_bots;
  v_ws uuid;
  v_count integer;
begin
  begin
    v_uid := p_user_id::uuid;
  exception when invalid_text_representation then
    v_uid := null;
  end;
  if v_uid is null or not exists (select 1 from auth.users where id = v_uid) then
    raise exception 'No such account' using errcode = 'PT404', hint = 'member_not_found';
  end if;
  select * into v_bot from public.svc_bots where upstream_bot_id = p_bot_id;
  if not found then
    select * into v_admin from public.svc_admin_bots where upstream_bot_id = p_bot_id;
    if not found then
      raise exception 'No such bot is recorded' using errcode = 'PT404', hint = 'bot_not_found';
    end if;
    select count(*), min(workspace_id::text)::uuid into v_count, v_ws
      from public.svc_members where user_id = v_uid;
    if v_count = 0 then
      raise exception 'The account has no workspace to hold the bot'
        using errcode = 'PT409', hint = 'tenant_not_found';
    elsif v_count > 1 then
      raise exception 'The account is in more than one workspace'
        using errcode = 'PT409', hint = 'tenant_ambiguous';
    end if;
    insert into public.svc_bots (workspace_id, name, upstream_bot_id)
      values (v_ws, v_admin.name, v_admin.upstream_bot_id)
      returning * into v_bot;
  end if;
  insert into public.svc_members (workspace_id, user_id, role)
    values (v_bot.workspace_id, v_uid, 'member')
    on conflict (workspace_id, user_id) do nothing;
  insert into public.svc_bot_grants (bot_id, user_id) values (v_bot.id, v_uid)
    on conflict do nothing;
  return jsonb_build_object(
    'botId', p_bot_id, 'userId', v_uid, 'workspaceId', v_bot.workspace_id, 'granted', true
  );
end;
$$;

-- svc_admin_revoke(p_bot_id, p_user_id): takes the grant back. Answers {"botId", "userId",
-- "revoked"} (revoked: whether a grant row was removed). The membership stays (a member
-- without grants reaches nothing); an owner or admin keeps the bots of their own workspace.
create or replace function public.svc_admin_revoke(p_bot_id text, p_user_id text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_uid uuid;
  v_count integer;
begin
  begin
    v_uid := p_user_id::uuid;
  exception when invalid_text_representation then
    raise exception 'No such account' using errcode = 'PT404', hint = 'member_not_found';
  end;
  delete from public.svc_bot_grants g
   using public.svc_bots b
   where g.bot_id = b.id and b.upstream_bot_id = p_bot_id and g.user_id = v_uid;
  get diagnostics v_count = row_count;
  return jsonb_build_object('botId', p_bot_id, 'userId', v_uid, 'revoked', v_count > 0);
end;
$$;

-- svc_admin_bot_record(p_bot_id, p_workspace_id, p_name): records a bot the panel just created
-- upstream (re-recording the same id updates it). Answers nothing.
create or replace function public.svc_admin_bot_record(
  p_bot_id text,
  p_workspace_id text,
  p_name text
)
returns void
language sql
volatile
security definer
set search_path = ''
as $$
  insert into public.svc_admin_bots (upstream_bot_id, upstream_workspace_id, name)
    values (p_bot_id, p_workspace_id, p_name)
    on conflict (upstream_bot_id) do update
      set upstream_workspace_id = excluded.upstream_workspace_id, name = excluded.name;
$$;

-- svc_admin_bot_rename(p_bot_id, p_name): renames the bot's records (panel and tenant rows).
-- Answers the previous name (null when nothing is recorded), so a refused upstream rename can be
-- undone with a second call.
create or replace function public.svc_admin_bot_rename(p_bot_id text, p_name text)
returns text
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_old text;
begin
  select name into v_old from public.svc_bots where upstream_bot_id = p_bot_id;
  if v_old is null then
    select name into v_old from public.svc_admin_bots where upstream_bot_id = p_bot_id;
  end if;
  update public.svc_bots set name = p_name where upstream_bot_id = p_bot_id;
  update public.svc_admin_bots set name = p_name where upstream_bot_id = p_bot_id;
  return v_old;
end;
$$;

-- svc_admin_bot_forget(p_bot_id): forgets a bot deleted upstream: its panel record and its
-- tenant row (with the grants on it). Answers the user ids that held a grant on it.
create or replace function public.svc_admin_bot_forget(p_bot_id text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_users jsonb;
begin
  select coalesce(jsonb_agg(distinct g.user_id), '[]'::jsonb) into v_users
    from public.svc_bot_grants g join public.svc_bots b on b.id = g.bot_id
   where b.upstream_bot_id = p_bot_id;
  delete from public.svc_bots where upstream_bot_id = p_bot_id;
  delete from public.svc_admin_bots where upstream_bot_id = p_bot_id;
  return v_users;
end;
$$;

revoke all on function public.svc_admin_throttle_take(text, integer, integer, integer)
  from public, anon, authenticated, service_role;
revoke all on function public.svc_admin_throttle_clear(text)
  from public, anon, authenticated, service_role;
revoke all on function public.svc_admin_tenants() from public, anon, authenticated, service_role;
revoke all on function public.svc_admin_grant(text, text)
  from public, anon, authenticated, service_role;
revoke all on function public.svc_admin_revoke(text, text)
  from public, anon, authenticated, service_role;
revoke all on function public.svc_admin_bot_record(text, text, text)
  from public, anon, authenticated, service_role;
revoke all on function public.svc_admin_bot_rename(text, text)
  from public, anon, authenticated, service_role;
revoke all on function public.svc_admin_bot_forget(text)
  from public, anon, authenticated, service_role;

grant execute on function public.svc_admin_throttle_take(text, integer, integer, integer)
  to service_role;
grant execute on function public.svc_admin_throttle_clear(text) to service_role;
grant execute on function public.svc_admin_tenants() to service_role;
grant execute on function public.svc_admin_grant(text, text) to service_role;
grant execute on function public.svc_admin_revoke(text, text) to service_role;
grant execute on function public.svc_admin_bot_record(text, text, text) to service_role;
grant execute on function public.svc_admin_bot_rename(text, text) to service_role;
grant execute on function public.svc_admin_bot_forget(text) to service_role;
