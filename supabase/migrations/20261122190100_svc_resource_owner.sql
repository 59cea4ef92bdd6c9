-- svc resource owner: the resource fence's shared store (SPEC "Resource fence", shared store;
-- "Resource binding states"). Service-role only. Read via svc_resource_owner_lookup, written via
-- svc_resource_bind in batches of up to 500 ids; a row is rewritten after 6 hours; rows older
-- than a day are invisible (the id is unknown again).
--
-- Safe to re-run. The table is reachable only through the two functions below.

create table if not exists public.svc_resource_owner (
  resource_id text primary key,
  bot_id text not null,
  shared boolean not null default false,
  bound_at timestamptz not null default now()
);
create index if not exists svc_resource_owner_bound_at_idx on public.svc_resource_owner (bound_at);

alter table public.svc_resource_owner enable row level security;

revoke all on table public.svc_resource_owner from public, anon, authenticated, service_role;

-- svc_resource_owner_lookup(p_ids): the live bindings (bound within the last day) of the named
-- ids; unknown and expired ids are simply absent. At most 500 ids per call
-- (PT422 hint 'too_many_ids').
create or replace function public.svc_resource_owner_lookup(p_ids text[])
returns table (resource_id text, bot_id text, shared boolean)
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  if coalesce(cardinality(p_ids), 0) > 500 then
    raise exception 'At most 500 resource ids per lookup'
      using errcode = 'PT422', hint = 'too_many_ids';
  end if;
  return query
    select o.resource_id, o.bot_id, o.shared
      from public.svc_resource_owner o
     where o.resource_id = any (p_ids)
       and o.bound_at > now() - interval '1 day';
end;
$$;

revoke all on function public.svc_resource_owner_lookup(text[])
  from public, anon, authenticated, service_role;
grant execute on function public.svc_resource_owner_lookup(text[]) to service_role;

-- svc_resource_bind(p_bindings): p_bindings is a JSON array (at most 500 elements, else PT422
-- hint 'too_many_bindings') of {"resource_id": <24 hex characters>, "bot_id": <1-64 of
-- [A-Za-z0-9_-]>} (anything else: PT422 hint 'bad_bindings'). Per id:
--   * no row, or a row older than a day (unknown again): written fresh, bound to the bot
--     (shared when the batch itself names the id under two bots);
--   * a live row bound to another bot: becomes shared;
--   * a live row older than 6 hours: rewritten (bound_at refreshed, bot and shared kept);
--   * otherwise left alone.
-- Every write sets bound_at = now(). Returns the number of rows written. Also prunes up to 500
-- rows older than a day (invisible already; not counted).
create or replace function public.svc_resource_bind(p_bindings jsonb)
returns integer
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_written integer;
begin
  if p_bindings is null or jsonb_typeof(p_bindings) <> 'array' then
    raise exception 'Bindings must be a JSON array'
      using errcode = 'PT422', hint = 'bad_bindings';
  end if;
  if jsonb_array_length(p_bindings) > 500 then
    raise exception 'At most 500 bindings per call'
      using errcode = 'PT422', hint = 'too_many_bindings';
  end if;
  if exists (
    select 1 from jsonb_array_elements(p_bindings) e
     where jsonb_typeof(e) <> 'object'
        or jsonb_typeof(e -> 'resource_id') is distinct from 'string'
        or jsonb_typeof(e -> 'bot_id') is distinct from 'string'
        or (e ->> 'resource_id') !~ '^[0-9A-Fa-f]{24}$'
        or (e ->> 'bot_id') !~ '^[A-Za-z0-9_-]{1,64}$'
  ) then
    raise exception 'Each binding needs a resource_id of 24 hex characters and a bot_id'
      using errcode = 'PT422', hint = 'bad_bindings';
  end if;

  with batch as (
    select e ->> 'resource_id' as resource_id,
           min(e ->> 'bot_id') as bot_id,
           count(distinct e ->> 'bot_id') > 1 as shared
      from jsonb_array_elements(p_bindings) e
     group by 1
  )
  insert into public.svc_resource_owner as o (resource_id, bot_id, shared, bound_at)
  select b.resource_id, b.bot_id, b.shared, now() from batch b
  on conflict (resource_id) do update set
    bot_id = case when o.bound_at <= now() - interval '1 day'
                  then excluded.bot_id else o.bot_id end,
    shared = case when o.bound_at <= now() - interval '1 day'
                  then excluded.shared
                  else o.shared or excluded.shared or o.bot_id <> excluded.bot_id end,
    bound_at = now()
  where o.bound_at <= now() - interval '6 hours'
     or (not o.shared and (excluded.shared or o.bot_id <> excluded.bot_id));
  get diagnostics v_written = row_count;

  delete from public.svc_resource_owner d
   where d.resource_id in (
     select x.resource_id from public.svc_resource_owner x
      where x.bound_at <= now() - interval '1 day'
      order by x.bound_at
      limit 500
      for update skip locked
   );

  return v_written;
end;
$$;

revoke all on function public.svc_resource_bind(jsonb)
  from public, anon, authenticated, service_role;
grant execute on function public.svc_resource_bind(jsonb) to service_role;
