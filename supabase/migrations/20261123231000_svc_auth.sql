-- svc auth: sign-up provisioning and the bot routes (SPEC "Route table" rows provision, bots;
-- "Sign-up and bot routes"; "Database hint mapping"). The recovery-link authorisation is
-- 20261123231100_svc_recovery.sql.
--
-- Provision is race-safe by reserving a row first, under a per-user lock and a per-workspace
-- lock (attach and release take the workspace lock too), then creating the bot upstream, then
-- attaching the upstream id with the reservation's token. A reservation (a
-- svc_bots row whose upstream_bot_id is null) is not an openable bot; one older than
-- svc_bot_caps.reservation_ttl_seconds is reclaimed (taken over with a new token, or dropped),
-- never duplicated. Caps are checked in the same transaction as the reservation, under one lock.
--
-- Who calls what: the gateway calls the caller-level functions with the user's session token
-- (auth.uid() is the caller) and the two that write upstream ids with the service-role key only
-- (a user calling PostgREST directly must not attach an arbitrary upstream bot id).
--
-- Safe to re-run. Tables are reachable only through the svc_* functions.

alter table public.svc_bots add column if not exists previous_name text;
alter table public.svc_bots add column if not exists reservation uuid;
alter table public.svc_bots add column if not exists reserved_by uuid;
alter table public.svc_bots add column if not exists reserved_at timestamptz;

-- One row: the bot caps and how long a reservation may wait for its upstream id.
create table if not exists public.svc_bot_caps (
  id boolean primary key default true check (id),
  workspace_bot_cap integer not null default 10 check (workspace_bot_cap > 0),
  deployment_bot_cap integer not null default 1000 check (deployment_bot_cap > 0),
  reservation_ttl_seconds integer not null default 120 check (reservation_ttl_seconds > 0)
);
insert into public.svc_bot_caps (id) values (true) on conflict (id) do nothing;

alter table public.svc_bot_caps enable row level security;
revoke all on table public.svc_bot_caps from public, anon, authenticated, service_role;

-- svc_auth_uid(): the caller, or PT401 'unauthenticated'. Internal (no grant).
create or replace function public.svc_auth_uid()
returns uuid
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid;
begin
  begin
    v_uid := auth.uid();
  exception when invalid_text_representation then
    v_uid := null;
  end;
  if v_uid is null then
    raise exception 'Sign in to use this deployment'
      using errcode = 'PT401', hint = 'unauthenticated';
  end if;
  return v_uid;
end;
$$;

-- svc_auth_check_name(p_name): PT422 'bad_name' (missing or blank) or 'name_too_long' (over 100
-- characters); answers the trimmed name. Internal (no grant).
create or replace function public.svc_auth_check_name(p_name text)
returns text
language plpgsql
immutable
security definer
set search_path = ''
as $$
begin
  if p_name is null or btrim(p_name) = '' then
    raise exception 'A bot needs a name' using errcode = 'PT422', hint = 'bad_name';
  end if;
  if char_length(btrim(p_name)) > 100 then
    raise exception 'A bot name has at most 100 characters'
      using errcode = 'PT422', hint = 'name_too_long';
  end if;
  return btrim(p_name);
end;
$$;

-- svc_auth_bots(uid, workspace, role): the caller's openable bots of the workspace as a JSON array
-- of {id (upstream id), name, createdAt}, oldest first. Internal (no grant). Volatile on
-- purpose: a stable function would read the snapshot of the outer call, taken before the
-- per-caller lock was granted, and miss a bot attached meanwhile.
create or replace function public.svc_auth_bots(p_uid uuid, p_ws uuid, p_role text)
returns jsonb
language sql
volatile
security definer
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', b.upstream_bot_id, 'name', b.name, 'createdAt', b.created_at)
           order by b.created_at, b.id), '[]'::jsonb)
    from public.svc_bots b
   where b.workspace_id = p_ws
     and b.upstream_bot_id is not null
     and (p_role in ('owner', 'admin')
          or exists (select 1 from public.svc_bot_grants g
                      where g.bot_id = b.id and g.user_id = p_uid));
$$;

-- svc_auth_reserve_in(workspace, uid, name): checks the caps (PT409 'workspace_bot_cap',
-- 'deployment_bot_cap') under one deployment-wide lock and inserts a reservation; answers
-- {reservation, token}. Expired reservations of the workspace are dropped first. Internal.
create or replace function public.svc_auth_reserve_in(p_ws uuid, p_uid uuid, p_name text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_caps public.svc_bot_caps;
  v_id uuid;
  v_token uuid := gen_random_uuid();
begin
  perform pg_advisory_xact_lock(hashtextextended('svc_bot_caps', 0));
  select * into v_caps from public.svc_bot_caps where id;
  delete from public.svc_bots
   where workspace_id = p_ws and upstream_bot_id is null
     and reserved_at < now() - make_interval(secs => v_caps.reservation_ttl_seconds);
  if (select count(*) from public.svc_bots where workspace_id = p_ws)
     >= v_caps.workspace_bot_cap then
    raise exception 'This workspace holds its maximum of % bots', v_caps.workspace_bot_cap
      using errcode = 'PT409', hint = 'workspace_bot_cap';
  end if;
  if (select count(*) from public.svc_bots) >= v_caps.deployment_bot_cap then
    raise exception 'This deployment holds its maximum number of bots'
      using errcode = 'PT409', hint = 'deployment_bot_cap';
  end if;
  insert into public.svc_bots (workspace_id, name, reservation, reserved_by, reserved_at)
  values (p_ws, p_name, v_token, p_uid, now())
  returning id into v_id;
  return jsonb_build_object('reservation', v_id, 'token', v_token);
end;
$$;

-- svc_provision(p_name): the caller's sign-up. Under a per-caller lock: opens a workspace owned
-- by the caller when there is none (PT409 'tenant_ambiguous' when in several), then answers
--   {state:'ready', workspace, bots}    the caller has an openable bot, or is a plain member;
--   {state:'pending', workspace, bots}  another call's reservation is waiting for its upstream id;
--   {state:'reserved', workspace, bots, reservation, token}  create upstream, then attach.
-- workspace = {id, name, role}; bots = svc_auth_bots. A reservation older than the ttl is taken
-- over (new token). Name checks and caps as svc_auth_check_name / svc_auth_reserve_in.
create or replace function public.svc_provision(p_name text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.svc_auth_uid();
  v_name text := public.svc_auth_check_name(p_name);
  v_ws uuid;
  v_role text;
  v_count integer;
  v_ws_json jsonb;
  v_bots jsonb;
  v_res public.svc_bots;
  v_ttl integer;
  v_token uuid;
begin
  perform pg_advisory_xact_lock(hashtextextended('svc_provision:' || v_uid::text, 0));
  select count(*) into v_count from public.svc_members where user_id = v_uid;
  if v_count > 1 then
    raise exception 'This account belongs to more than one workspace'
      using errcode = 'PT409', hint = 'tenant_ambiguous';
  elsif v_count = 0 then
    insert into public.svc_workspaces (name) values ('My workspace') returning id into v_ws;
    insert into public.svc_members (workspace_id, user_id, role) values (v_ws, v_uid, 'owner');
    v_role := 'owner';
  else
    select workspace_id, role into v_ws, v_role from public.svc_members where user_id = v_uid;
  end if;
  -- attach and release take the same lock: nothing changes the workspace's bots meanwhile
  perform pg_advisory_xact_lock(hashtextextended('svc_bots_of:' || v_ws::text, 0));
  select jsonb_build_object('id', w.id, 'name', w.name, 'role', v_role)
    into v_ws_json from public.svc_workspaces w where w.id = v_ws;
  select public.svc_auth_bots(v_uid, v_ws, v_role) into v_bots;
  if jsonb_array_length(v_bots) > 0 or v_role = 'member' then
    return jsonb_build_object('state', 'ready', 'workspace', v_ws_json, 'bots', v_bots);
  end if;
  select * into v_res from public.svc_bots
   where workspace_id = v_ws and upstream_bot_id is null
   order by reserved_at limit 1 for update;
  if found then
    select reservation_ttl_seconds into v_ttl from public.svc_bot_caps where id;
    if v_res.reserved_at > now() - make_interval(secs => v_ttl) then
      return jsonb_build_object('state', 'pending', 'workspace', v_ws_json, 'bots', v_bots);
    end if;
    v_token := gen_random_uuid();
    update public.svc_bots
       set reservation = v_token, reserved_by = v_uid, reserved_at = now(), name = v_name
     where id = v_res.id;
    return jsonb_build_object('state', 'reserved', 'workspace', v_ws_json, 'bots', v_bots,
      'reservation', v_res.id, 'token', v_token);
  end if;
  return jsonb_build_object('state', 'reserved', 'workspace', v_ws_json, 'bots', v_bots)
    || public.svc_auth_reserve_in(v_ws, v_uid, v_name);
end;
$$;

-- svc_bot_reserve(p_name): a reservation for another bot in the caller's workspace (POST bots).
-- PT404 'tenant_not_found' (no workspace), PT409 'tenant_ambiguous', PT403 'not_admin' (a plain
-- member), name checks, caps. Answers {workspace, reservation, token}.
create or replace function public.svc_bot_reserve(p_name text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.svc_auth_uid();
  v_name text := public.svc_auth_check_name(p_name);
  v_count integer;
  v_ws uuid;
  v_role text;
begin
  select count(*) into v_count from public.svc_members where user_id = v_uid;
  if v_count = 0 then
    raise exception 'This account has no workspace yet; provision first'
      using errcode = 'PT404', hint = 'tenant_not_found';
  elsif v_count > 1 then
    raise exception 'This account belongs to more than one workspace'
      using errcode = 'PT409', hint = 'tenant_ambiguous';
  end if;
  select workspace_id, role into v_ws, v_role from public.svc_members where user_id = v_uid;
  if v_role not in ('owner', 'admin') then
    raise exception 'Only an owner or admin of the workspace may do this'
      using errcode = 'PT403', hint = 'not_admin';
  end if;
  perform pg_advisory_xact_lock(hashtextextended('svc_bots_of:' || v_ws::text, 0));
  return jsonb_build_object('workspace', v_ws) || public.svc_auth_reserve_in(v_ws, v_uid, v_name);
end;
$$;

-- svc_bot_attach(reservation, token, upstream id): service role only. Gives the reservation its
-- upstream id; answers the bot {id, name, createdAt}. PT422 'bad_bot_id' (not 1-64 of
-- [A-Za-z0-9_-]), PT409 'reservation_lost' (taken over or dropped: the caller must delete the
-- upstream bot it created), PT409 'bot_already_attached' (another row holds that upstream id).
create or replace function public.svc_bot_attach(
  p_reservation uuid,
  p_token uuid,
  p_upstream_bot_id text
)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_bot public.svc_bots;
begin
  if p_upstream_bot_id is null or p_upstream_bot_id !~ '^[A-Za-z0-9_-]{1,64}$' then
    raise exception 'Not a bot id' using errcode = 'PT422', hint = 'bad_bot_id';
  end if;
  perform pg_advisory_xact_lock(hashtextextended('svc_bots_of:' || b.workspace_id::text, 0))
     from public.svc_bots b where b.id = p_reservation;
  begin
    update public.svc_bots
       set upstream_bot_id = p_upstream_bot_id, reservation = null, reserved_by = null,
           reserved_at = null
     where id = p_reservation and reservation = p_token and upstream_bot_id is null
    returning * into v_bot;
  exception when unique_violation then
    raise exception 'That bot is already recorded'
      using errcode = 'PT409', hint = 'bot_already_attached';
  end;
  if v_bot.id is null then
    raise exception 'The reservation was taken over'
      using errcode = 'PT409', hint = 'reservation_lost';
  end if;
  return jsonb_build_object('id', v_bot.upstream_bot_id, 'name', v_bot.name,
    'createdAt', v_bot.created_at);
end;
$$;

-- svc_bot_release(reservation, token): service role only. Drops a reservation whose upstream
-- create failed; answers whether a row was dropped.
create or replace function public.svc_bot_release(p_reservation uuid, p_token uuid)
returns boolean
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  perform pg_advisory_xact_lock(hashtextextended('svc_bots_of:' || b.workspace_id::text, 0))
     from public.svc_bots b where b.id = p_reservation;
  delete from public.svc_bots
   where id = p_reservation and reservation = p_token and upstream_bot_id is null;
  return found;
end;
$$;

-- svc_auth_own_bot(uid, upstream id): the bot row of a workspace where the caller is owner or
-- admin. PT404 'bot_not_found' (no such bot among the caller's workspaces), PT403 'not_admin'
-- (the caller is a plain member there). Locks the row. Internal.
create or replace function public.svc_auth_own_bot(p_uid uuid, p_bot_id text)
returns public.svc_bots
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_bot public.svc_bots;
  v_id uuid;
  v_role text;
begin
  select b.id, m.role into v_id, v_role
    from public.svc_bots b
    join public.svc_members m on m.workspace_id = b.workspace_id and m.user_id = p_uid
   where b.upstream_bot_id = p_bot_id;
  select * into v_bot from public.svc_bots where id = v_id for update;
  if v_bot.id is null then
    raise exception 'No such bot in your workspace'
      using errcode = 'PT404', hint = 'bot_not_found';
  end if;
  if v_role not in ('owner', 'admin') then
    raise exception 'Only an owner or admin of the workspace may do this'
      using errcode = 'PT403', hint = 'not_admin';
  end if;
  return v_bot;
end;
$$;

-- svc_bot_rename(bot, name): renames the caller's bot, keeping the previous name;
-- answers {id, name, previousName}. Errors as svc_auth_own_bot and svc_auth_check_name.
create or replace function public.svc_bot_rename(p_bot_id text, p_name text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.svc_auth_uid();
  v_name text := public.svc_auth_check_name(p_name);
  v_bot public.svc_bots := public.svc_auth_own_bot(v_uid, p_bot_id);
begin
  update public.svc_bots set previous_name = name, name = v_name where id = v_bot.id;
  return jsonb_build_object('id', v_bot.upstream_bot_id, 'name', v_name,
    'previousName', v_bot.name);
end;
$$;

-- svc_bot_rename_restore(bot, name): puts the previous name back when the name is still `name`
-- (a later rename is not undone); answers whether it did.
create or replace function public.svc_bot_rename_restore(p_bot_id text, p_name text)
returns boolean
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.svc_auth_uid();
  v_bot public.svc_bots := public.svc_auth_own_bot(v_uid, p_bot_id);
begin
  if v_bot.previous_name is null or v_bot.name is distinct from btrim(p_name) then
    return false;
  end if;
  update public.svc_bots set name = previous_name, previous_name = null where id = v_bot.id;
  return true;
end;
$$;

-- svc_bot_delete_check(bot): the caller-side delete guard. Answers {id, name, lastOpenable}:
-- lastOpenable is true when this is the caller's only openable bot. Errors as svc_auth_own_bot.
create or replace function public.svc_bot_delete_check(p_bot_id text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.svc_auth_uid();
  v_bot public.svc_bots := public.svc_auth_own_bot(v_uid, p_bot_id);
  v_openable integer;
begin
  select count(*) into v_openable from public.svc_bots
   where workspace_id = v_bot.workspace_id and upstream_bot_id is not null;
  return jsonb_build_object('id', v_bot.upstream_bot_id, 'name', v_bot.name,
    'lastOpenable', v_openable <= 1);
end;
$$;

-- svc_bot_forget(bot): removes the caller's bot row (after the upstream delete) with its grants;
-- answers {id}. Errors as svc_auth_own_bot.
create or replace function public.svc_bot_forget(p_bot_id text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.svc_auth_uid();
  v_bot public.svc_bots := public.svc_auth_own_bot(v_uid, p_bot_id);
begin
  delete from public.svc_bots where id = v_bot.id;
  return jsonb_build_object('id', v_bot.upstream_bot_id);
end;
$$;

revoke all on function
  public.svc_auth_uid(),
  public.svc_auth_check_name(text),
  public.svc_auth_bots(uuid, uuid, text),
  public.svc_auth_reserve_in(uuid, uuid, text),
  public.svc_auth_own_bot(uuid, text),
  public.svc_provision(text),
  public.svc_bot_reserve(text),
  public.svc_bot_attach(uuid, uuid, text),
  public.svc_bot_release(uuid, uuid),
  public.svc_bot_rename(text, text),
  public.svc_bot_rename_restore(text, text),
  public.svc_bot_delete_check(text),
  public.svc_bot_forget(text)
  from public, anon, authenticated, service_role;

grant execute on function
  public.svc_provision(text),
  public.svc_bot_reserve(text),
  public.svc_bot_rename(text, text),
  public.svc_bot_rename_restore(text, text),
  public.svc_bot_delete_check(text),
  public.svc_bot_forget(text)
  to authenticated;

grant execute on function
  public.svc_bot_attach(uuid, uuid, text),
  public.svc_bot_release(uuid, uuid)
  to service_role;
