-- svc recovery caller: the recovery-link route checks its caller before it says anything of its
-- own settings (SPEC "Recovery-link route": AuthSessionRequired and NotEnoughPermissions come
-- before RecoveryLinkNotEnabled and ProxyPublicUrlMissing in the table), so a caller without a
-- session or the rank cannot learn whether AUTH_RECOVERY_LINK_LOG or PUBLIC_URL is set.
-- svc_recovery_authorize still decides the target and records the request.
--
-- Safe to re-run.

-- svc_recovery_caller_check(): may the caller ask for recovery links at all? PT401
-- 'unauthenticated' (no session, or the caller has no workspace row), PT403 'rank' (the caller is
-- neither owner nor admin anywhere). Records nothing; answers null.
create or replace function public.svc_recovery_caller_check()
returns void
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid := public.svc_auth_uid();
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
end;
$$;

revoke all on function public.svc_recovery_caller_check()
  from public, anon, authenticated, service_role;
grant execute on function public.svc_recovery_caller_check() to authenticated;
