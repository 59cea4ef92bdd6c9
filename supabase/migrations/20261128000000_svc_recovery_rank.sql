-- svc recovery rank: svc_recovery_authorize refuses only a target who outranks the caller (SPEC
-- "Database hint mapping": "rank | NotEnoughPermissions (target outranks caller)"); an admin may
-- have a link written for another admin, an owner for a co-owner. Replaces the function of
-- 20261123231100_svc_recovery.sql, which also refused an equal rank; everything else is unchanged.
--
-- Safe to re-run.

-- svc_recovery_authorize(p_email): may the caller have a recovery link written for the account
-- with this email? PT401 'unauthenticated' (no session, or the caller has no workspace row),
-- PT403 'rank' (the caller is neither owner nor admin, or the target outranks the caller:
-- owner > admin > member; an equal rank is allowed), PT404 'not_member' (no such account in a
-- workspace the caller administers), PT409 'cross_tenant' (the target is also in another workspace).
-- Records the authorised request; answers {userId, email}.
create or replace function public.svc_recovery_authorize(p_email text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.svc_auth_uid();
  v_target uuid;
  v_email text;
  v_ws uuid;
  v_caller_rank integer;
  v_target_rank integer;
begin
  if not exists (select 1 from public.svc_members where user_id = v_uid) then
    raise exception 'Sign in to use this deployment'
      using errcode = 'PT401', hint = 'unauthenticated';
  end if;
  if not exists (select 1 from public.svc_members
                  where user_id = v_uid and role in ('owner', 'admin')) then
    raise exception 'Only an owner or admin may ask for a recovery link'
      using errcode = 'PT403', hint = 'rank';
  end if;
  select u.id, u.email into v_target, v_email from auth.users u
   where lower(u.email) = lower(btrim(p_email));
  select t.workspace_id,
         case c.role when 'owner' then 3 when 'admin' then 2 else 1 end,
         case t.role when 'owner' then 3 when 'admin' then 2 else 1 end
    into v_ws, v_caller_rank, v_target_rank
    from public.svc_members t
    join public.svc_members c on c.workspace_id = t.workspace_id and c.user_id = v_uid
   where t.user_id = v_target and c.role in ('owner', 'admin')
   order by 2 desc limit 1;
  if v_ws is null then
    raise exception 'No such member in your workspace'
      using errcode = 'PT404', hint = 'not_member';
  end if;
  if v_target_rank > v_caller_rank then
    raise exception 'That member outranks you'
      using errcode = 'PT403', hint = 'rank';
  end if;
  if exists (select 1 from public.svc_members
              where user_id = v_target and workspace_id <> v_ws) then
    raise exception 'That account also belongs to another workspace'
      using errcode = 'PT409', hint = 'cross_tenant';
  end if;
  insert into public.svc_recovery_requests (caller_id, target_id, workspace_id)
  values (v_uid, v_target, v_ws);
  return jsonb_build_object('userId', v_target, 'email', v_email);
end;
$$;

revoke all on function public.svc_recovery_authorize(text)
  from public, anon, authenticated, service_role;
grant execute on function public.svc_recovery_authorize(text) to authenticated;
