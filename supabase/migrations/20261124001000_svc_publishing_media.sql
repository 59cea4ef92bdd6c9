-- svc publishing media: the accounting of objects the publish queue wrote to Supabase Storage
-- (SPEC "Publish queue": media; facts.json "publishingMediaTypes.storage"). The objects live in
-- the bucket PUBLISHING_MEDIA_BUCKET under '<botId>/<uuid>.<ext>'; this table knows each one's
-- bot and size, so a bot's share (PUBLISHING_MEDIA_QUOTA_MB) is checked before an upload, and
-- lists the objects no post references any more once older than PUBLISHING_MEDIA_TTL_DAYS.
--
-- Safe to re-run. Service role only (the gateway calls these around its Storage API calls).

create table if not exists public.svc_media (
  key text primary key,
  bot_id text not null,
  bytes bigint not null check (bytes >= 0),
  content_type text not null,
  created_at timestamptz not null default now()
);
create index if not exists svc_media_bot_idx on public.svc_media (bot_id);

alter table public.svc_media enable row level security;
revoke all on table public.svc_media from public, anon, authenticated, service_role;

-- Reserves `p_bytes` of bot `p_bot_id`'s share for object `p_key` before the upload; over
-- `p_quota_bytes` in all: PT507 hint 'media_quota' (the gateway answers 507 MediaQuotaExceeded).
-- Concurrent reservations of one bot are serialised. Answers the bot's bytes after it.
create or replace function public.svc_media_reserve(
  p_bot_id text,
  p_key text,
  p_bytes bigint,
  p_content_type text,
  p_quota_bytes bigint
)
returns bigint
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_used bigint;
begin
  if p_bot_id is null or p_bot_id !~ '^[A-Za-z0-9_-]{1,64}$' then
    raise exception 'The bot id is not key-shaped' using errcode = 'PT422', hint = 'bad_bot_id';
  end if;
  if p_key is null or left(p_key, length(p_bot_id) + 1) <> p_bot_id || '/' then
    raise exception 'The key is outside the bot''s prefix' using errcode = 'PT422', hint = 'bad_media';
  end if;
  perform pg_advisory_xact_lock(hashtextextended('svc_media:' || p_bot_id, 0));
  select coalesce(sum(bytes), 0) into v_used from public.svc_media where bot_id = p_bot_id;
  if v_used + p_bytes > p_quota_bytes then
    raise exception 'The bot''s share of the media bucket is full'
      using errcode = 'PT507', hint = 'media_quota';
  end if;
  insert into public.svc_media (key, bot_id, bytes, content_type)
  values (p_key, p_bot_id, p_bytes, p_content_type);
  return v_used + p_bytes;
end;
$$;

-- Forgets object `p_key` of bot `p_bot_id` (after a delete, or a failed upload). Answers whether
-- a row was there.
create or replace function public.svc_media_forget(p_bot_id text, p_key text)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
begin
  delete from public.svc_media where key = p_key and bot_id = p_bot_id;
  return found;
end;
$$;

-- Objects older than `p_ttl_days` that no post's media references (as its source key or inside
-- its url), at most `p_limit`, oldest first: what the media sweep removes from storage.
create or replace function public.svc_media_expired(p_ttl_days integer, p_limit integer default 100)
returns setof text
language sql
stable
security definer
set search_path = ''
as $$
  select m.key from public.svc_media m
   where m.created_at < now() - make_interval(days => p_ttl_days)
     and not exists (
       select 1 from public.svc_posts p, jsonb_array_elements(p.media) item
        where p.bot_id = m.bot_id
          and (item ->> 'source' = m.key or position(m.key in item ->> 'url') > 0))
   order by m.created_at
   limit greatest(p_limit, 0)
$$;

revoke all on function
  public.svc_media_reserve(text, text, bigint, text, bigint),
  public.svc_media_forget(text, text),
  public.svc_media_expired(integer, integer)
  from public, anon, authenticated, service_role;
grant execute on function
  public.svc_media_reserve(text, text, bigint, text, bigint),
  public.svc_media_forget(text, text),
  public.svc_media_expired(integer, integer)
  to service_role;
