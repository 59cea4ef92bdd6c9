-- svc bot upstream guard: the database keeps a bot row and the upstream in agreement even when a
-- signed-in user calls the svc_* functions directly (the anon key ships in every browser app, so
-- PostgREST is reachable around the gateway with the user's own session token). SPEC "Database
-- hint mapping": "bot_still_upstream | BotStillUpstream (row cannot be forgotten while upstream
-- still has the bot)"; "Route table" rows PATCH and DELETE /svc/auth/bots/<id>; docs/backend.md
-- "Who may call each function".
--
-- What a user may still call (as before, through the gateway or not) only checks or reserves:
--   svc_bot_rename        checks the caller may rename the bot to the name; writes nothing
--   svc_bot_delete_check  the caller-side delete guard; also says whether the upstream delete
--                         was already recorded (a delete that stopped half-way)
--   svc_bot_forget        removes the row only once svc_bot_upstream_deleted recorded the
--                         upstream delete; else PT409 'bot_still_upstream'
--   svc_provision, svc_bot_reserve  reservations (not bots; attach is the service role's)
-- What only the service role (the gateway, after the upstream answered) may call:
--   svc_bot_renamed           writes the name the upstream accepted
--   svc_bot_upstream_deleted  records that the upstream deleted the bot
-- svc_bot_rename_restore is dropped: nothing is written before the upstream rename any more.
--
-- Also: expired reservations are dropped deployment-wide before the caps are counted, so
-- reservations a user made and abandoned (in any workspace) never hold the deployment cap.
--
-- Safe to re-run. Uses svc_auth_uid, svc_auth_check_name and svc_auth_own_bot of
-- 20261123231000_svc_auth.sql.

-- When the gateway recorded the upstream delete of the bot (null: the upstream still has it).
alter table public.svc_bots add column if not exists upstream_deleted_at timestamptz;

drop function if exists public.svc_bot_rename_restore(text, text);

-- svc_auth_reserve_in(workspace, uid, name): as in 20261123231000_svc_auth.sql, except that the
-- expired reservations of every workspace are dropped before the caps are counted. Internal.
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
   where upstream_bot_id is null
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

-- svc_bot_rename(bot, name): may the caller (owner or admin of the bot's workspace) rename the
-- bot to `name`? Writes nothing: the gateway renames upstream, then records the name with
-- svc_bot_renamed. Answers {id, name (trimmed), previousName (the current name)}. Errors as
-- svc_auth_own_bot and svc_auth_check_name.
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
  return jsonb_build_object('id', v_bot.upstream_bot_id, 'name', v_name,
    'previousName', v_bot.name);
end;
$$;

-- svc_bot_renamed(bot, name): service role only, called after the upstream accepted the name.
-- Writes it, keeping the previous one; answers {id, name, previousName}. PT404 'bot_not_found'
-- (no row with that upstream id), name errors as svc_auth_check_name.
create or replace function public.svc_bot_renamed(p_bot_id text, p_name text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_name text := public.svc_auth_check_name(p_name);
  v_bot public.svc_bots;
begin
  select * into v_bot from public.svc_bots where upstream_bot_id = p_bot_id for update;
  if v_bot.id is null then
    raise exception 'No such bot' using errcode = 'PT404', hint = 'bot_not_found';
  end if;
  update public.svc_bots set previous_name = name, name = v_name where id = v_bot.id;
  return jsonb_build_object('id', v_bot.upstream_bot_id, 'name', v_name,
    'previousName', v_bot.name);
end;
$$;

-- svc_bot_delete_check(bot): the caller-side delete guard. Answers {id, name, lastOpenable,
-- upstreamDeleted}: lastOpenable is true when this is the workspace's only openable bot (a bot
-- whose upstream delete is recorded no longer counts); upstreamDeleted is true when the upstream
-- delete was already recorded (the gateway then only forgets the row). Errors as
-- svc_auth_own_bot.
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
   where workspace_id = v_bot.workspace_id and upstream_bot_id is not null
     and upstream_deleted_at is null;
  return jsonb_build_object('id', v_bot.upstream_bot_id, 'name', v_bot.name,
    'lastOpenable', v_bot.upstream_deleted_at is null and v_openable <= 1,
    'upstreamDeleted', v_bot.upstream_deleted_at is not null);
end;
$$;

-- svc_bot_upstream_deleted(bot): service role only, called after the upstream deleted the bot
-- (or answered that it has no such bot). Records it on the row; answers whether a row exists.
create or replace function public.svc_bot_upstream_deleted(p_bot_id text)
returns boolean
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  update public.svc_bots set upstream_deleted_at = coalesce(upstream_deleted_at, now())
   where upstream_bot_id = p_bot_id;
  return found;
end;
$$;

-- svc_bot_forget(bot): removes the caller's bot row with its grants, once the upstream delete is
-- recorded (svc_bot_upstream_deleted); answers {id}. PT409 'bot_still_upstream' before that;
-- other errors as svc_auth_own_bot.
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
  if v_bot.upstream_deleted_at is null then
    raise exception 'The bot still exists upstream; delete it through the gateway'
      using errcode = 'PT409', hint = 'bot_still_upstream';
  end if;
  delete from public.svc_bots where id = v_bot.id;
  return jsonb_build_object('id', v_bot.upstream_bot_id);
end;
$$;

revoke all on function
  public.svc_auth_reserve_in(uuid, uuid, text),
  public.svc_bot_rename(text, text),
  public.svc_bot_renamed(text, text),
  public.svc_bot_delete_check(text),
  public.svc_bot_upstream_deleted(text),
  public.svc_bot_forget(text)
  from public, anon, authenticated, service_role;

grant execute on function
  public.svc_bot_rename(text, text),
  public.svc_bot_delete_check(text),
  public.svc_bot_forget(text)
  to authenticated;

grant execute on function
  public.svc_bot_renamed(text, text),
  public.svc_bot_upstream_deleted(text)
  to service_role;
