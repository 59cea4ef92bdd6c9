-- svc tenancy: workspaces (the app's tenants), their members, their bots, per-bot grants,
-- and svc_my_bot_ids(), the bot set the session gate reads (SPEC "Authentication" 2,
-- "Bot fence": "With the gate on, the caller's bot set comes from the backend RPC svc_my_bot_ids").
--
-- Safe to re-run. Tables are reachable only through svc_* functions: row-level security is on
-- with no policy, and every privilege is revoked from public, anon, authenticated and service_role
-- (Supabase grants all of them by default on schema public).

create table if not exists public.svc_workspaces (
  id uuid primary key default gen_random_uuid(),
  name text not null,
  created_at timestamptz not null default now()
);

create table if not exists public.svc_members (
  workspace_id uuid not null references public.svc_workspaces (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'member')),
  created_at timestamptz not null default now(),
  primary key (workspace_id, user_id)
);
create index if not exists svc_members_user_id_idx on public.svc_members (user_id);

create table if not exists public.svc_bots (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.svc_workspaces (id) on delete cascade,
  name text not null,
  -- null until the bot exists upstream; one row per upstream bot
  upstream_bot_id text unique,
  created_at timestamptz not null default now()
);
create index if not exists svc_bots_workspace_id_idx on public.svc_bots (workspace_id);

create table if not exists public.svc_bot_grants (
  bot_id uuid not null references public.svc_bots (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (bot_id, user_id)
);
create index if not exists svc_bot_grants_user_id_idx on public.svc_bot_grants (user_id);

alter table public.svc_workspaces enable row level security;
alter table public.svc_members enable row level security;
alter table public.svc_bots enable row level security;
alter table public.svc_bot_grants enable row level security;

revoke all on table
  public.svc_workspaces, public.svc_members, public.svc_bots, public.svc_bot_grants
  from public, anon, authenticated, service_role;

-- svc_my_bot_ids(): upstream ids (non-null only) of every bot the caller may open:
-- every bot of a workspace where the caller is owner or admin, the granted ones where member.
-- Refuses PT401 hint 'unauthenticated' when the request carries no usable subject.
create or replace function public.svc_my_bot_ids()
returns text[]
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid;
  v_ids text[];
begin
  begin
    v_uid := auth.uid();
  exception when invalid_text_representation then
    v_uid := null;  -- a sub that is not a uuid names no user
  end;
  if v_uid is null then
    raise exception 'Sign in to use this deployment'
      using errcode = 'PT401', hint = 'unauthenticated';
  end if;

  select coalesce(array_agg(distinct b.upstream_bot_id order by b.upstream_bot_id), '{}')
    into v_ids
    from public.svc_members m
    join public.svc_bots b on b.workspace_id = m.workspace_id
   where m.user_id = v_uid
     and b.upstream_bot_id is not null
     and (
       m.role in ('owner', 'admin')
       or exists (
         select 1 from public.svc_bot_grants g
          where g.bot_id = b.id and g.user_id = v_uid
       )
     );
  return v_ids;
end;
$$;

revoke all on function public.svc_my_bot_ids() from public, anon, authenticated, service_role;
grant execute on function public.svc_my_bot_ids() to authenticated, service_role;
