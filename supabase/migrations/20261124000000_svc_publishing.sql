-- svc publishing: the publish queue of scheduled social posts (SPEC "Publish queue:
-- /svc/publishing"; the rules are data/upstream/facts.json "publishingPostRules").
--
--   svc_posts                 one row per queued post of a bot (upstream bot id)
--   svc_publishing_settings   the one registration: where the scheduler calls back, the key it sends
--
-- Lifecycle: draft (no time) / scheduled (a time) --claim--> publishing --callback takes it-->
-- published | failed. The reaper returns a post stuck in publishing to scheduled (or failed after
-- 3 attempts, or when taken without an outcome). Edits are refused while publishing or once
-- published.
--
-- Safe to re-run. Tables are reachable only through svc_* functions (RLS on, no policy, every
-- privilege revoked). Refusals: errcode PTxyz (PostgREST answers xyz) with a machine hint of
-- SPEC "Database hint mapping".

create table if not exists public.svc_posts (
  id uuid primary key default gen_random_uuid(),
  bot_id text not null,
  kind text not null check (kind in ('post', 'reel', 'story', 'carousel')),
  media jsonb not null default '[]'::jsonb,
  caption text,
  cover_url text,
  share_to_feed boolean,
  thumb_offset integer,
  scheduled_at timestamptz,
  status text not null check (status in ('draft', 'scheduled', 'publishing', 'published', 'failed')),
  permalink text,
  published_media_id text,
  last_error text,
  attempts integer not null default 0,
  claimed_at timestamptz,
  taken_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists svc_posts_bot_idx on public.svc_posts (bot_id, created_at);
create index if not exists svc_posts_due_idx on public.svc_posts (scheduled_at)
  where status = 'scheduled';

create table if not exists public.svc_publishing_settings (
  id boolean primary key default true check (id),
  callback_url text not null,
  publish_key text not null,
  bypass_secret text,
  registered_at timestamptz not null default now()
);

alter table public.svc_posts enable row level security;
alter table public.svc_publishing_settings enable row level security;
revoke all on table public.svc_posts, public.svc_publishing_settings
  from public, anon, authenticated, service_role;

-- The answer shape of one post (src/routes/publishing/README.md "The post"): camelCase, times
-- ISO 8601 UTC with ms and Z.
create or replace function public.svc_post_json(p public.svc_posts)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select jsonb_build_object(
    'id', p.id,
    'botId', p.bot_id,
    'kind', p.kind,
    'media', p.media,
    'caption', p.caption,
    'coverUrl', p.cover_url,
    'shareToFeed', p.share_to_feed,
    'thumbOffset', p.thumb_offset,
    'scheduledAt', to_char(p.scheduled_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'status', p.status,
    'permalink', p.permalink,
    'lastError', p.last_error,
    'attempts', p.attempts,
    'createdAt', to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updatedAt', to_char(p.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  )
$$;

-- Refuses a url that is not https: another scheme → insecure_url, not a url at all → bad_url.
create or replace function public.svc_post_check_url(p_url jsonb, p_what text)
returns text
language plpgsql
immutable
security definer
set search_path = ''
as $$
declare
  v text;
begin
  if p_url is null or jsonb_typeof(p_url) <> 'string' then
    raise exception '% must be a URL string', p_what using errcode = 'PT422', hint = 'bad_url';
  end if;
  v := p_url #>> '{}';
  if v ~ '^https://[^\s/?#@]+(:[0-9]+)?([/?#]\S*)?$' then
    return v;
  end if;
  if v ~* '^[a-z][a-z0-9+.-]*:' then
    raise exception '% must use https', p_what using errcode = 'PT422', hint = 'insecure_url';
  end if;
  raise exception '% is not a URL', p_what using errcode = 'PT422', hint = 'bad_url';
end;
$$;

-- Applies `p_input` (create body or patch) onto `p_base` and validates the result. Keys:
-- kind, media, caption, scheduledAt, status, coverUrl, shareToFeed, thumbOffset; any other key
-- (or a value of the wrong JSON type) is bad_patch.
create or replace function public.svc_post_apply(p_base public.svc_posts, p_input jsonb)
returns public.svc_posts
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  p public.svc_posts := p_base;
  v_key text;
  v_item jsonb;
  v_items jsonb := '[]'::jsonb;
  v_n integer;
  v_status text;
  v_time text;
  v_first text;
begin
  if p_input is null or jsonb_typeof(p_input) <> 'object' then
    raise exception 'A post is a JSON object' using errcode = 'PT422', hint = 'bad_patch';
  end if;
  for v_key in select jsonb_object_keys(p_input) loop
    if v_key not in ('kind', 'media', 'caption', 'scheduledAt', 'status', 'coverUrl',
                     'shareToFeed', 'thumbOffset') then
      raise exception 'Unknown post field %', v_key using errcode = 'PT422', hint = 'bad_patch';
    end if;
  end loop;

  if p_input ? 'kind' then
    if jsonb_typeof(p_input -> 'kind') <> 'string'
       or (p_input ->> 'kind') not in ('post', 'reel', 'story', 'carousel') then
      raise exception 'kind must be post, reel, story or carousel'
        using errcode = 'PT422', hint = 'bad_kind';
    end if;
    p.kind := p_input ->> 'kind';
  end if;
  if p.kind is null then
    raise exception 'kind is required' using errcode = 'PT422', hint = 'bad_kind';
  end if;

  if p_input ? 'caption' then
    if jsonb_typeof(p_input -> 'caption') = 'null' then
      p.caption := null;
    elsif jsonb_typeof(p_input -> 'caption') = 'string' then
      p.caption := nullif(p_input ->> 'caption', '');
    else
      raise exception 'caption must be a string' using errcode = 'PT422', hint = 'bad_patch';
    end if;
  end if;
  if char_length(p.caption) > 2200 then
    raise exception 'The caption is over 2200 characters'
      using errcode = 'PT422', hint = 'caption_too_long';
  end if;

  if p_input ? 'media' then
    if jsonb_typeof(p_input -> 'media') <> 'array' then
      raise exception 'media must be an array' using errcode = 'PT422', hint = 'bad_media';
    end if;
    for v_item in select value from jsonb_array_elements(p_input -> 'media') loop
      if jsonb_typeof(v_item) <> 'object'
         or (v_item ? 'type' and jsonb_typeof(v_item -> 'type') <> 'string')
         or (v_item ? 'id' and jsonb_typeof(v_item -> 'id') not in ('string', 'null'))
         or (v_item ? 'source' and jsonb_typeof(v_item -> 'source') not in ('string', 'null')) then
        raise exception 'Each media item is {id?, type, url, source?}'
          using errcode = 'PT422', hint = 'bad_media';
      end if;
      perform public.svc_post_check_url(v_item -> 'url', 'A media url');
      v_items := v_items || jsonb_build_array(jsonb_build_object(
        'id', v_item -> 'id',
        'type', case when v_item ->> 'type' = 'video' then 'video' else 'image' end,
        'url', v_item -> 'url',
        'source', v_item -> 'source'
      ));
    end loop;
    p.media := v_items;
  end if;
  v_n := jsonb_array_length(p.media);
  v_first := p.media -> 0 ->> 'type';
  if (p.kind = 'post' and v_first is distinct from 'image')
     or (p.kind = 'reel' and v_first is distinct from 'video')
     or (p.kind = 'story' and v_n < 1)
     or (p.kind = 'carousel' and (v_n < 2 or v_n > 10))
     or v_n > 10 then
    raise exception 'media does not fit a % (post: an image first; reel: a video first; story: one item or more; carousel: 2 to 10)', p.kind
      using errcode = 'PT422', hint = 'bad_media';
  end if;

  if p_input ? 'coverUrl' then
    p.cover_url := case when jsonb_typeof(p_input -> 'coverUrl') = 'null' then null
                        else public.svc_post_check_url(p_input -> 'coverUrl', 'coverUrl') end;
  end if;
  if p_input ? 'shareToFeed' then
    if jsonb_typeof(p_input -> 'shareToFeed') not in ('boolean', 'null') then
      raise exception 'shareToFeed must be a boolean' using errcode = 'PT422', hint = 'bad_patch';
    end if;
    p.share_to_feed := (p_input ->> 'shareToFeed')::boolean;
  end if;
  if p_input ? 'thumbOffset' then
    if jsonb_typeof(p_input -> 'thumbOffset') not in ('number', 'null')
       or abs((p_input ->> 'thumbOffset')::numeric) >= 2147483648 then
      raise exception 'thumbOffset must be a number' using errcode = 'PT422', hint = 'bad_patch';
    end if;
    p.thumb_offset := trunc((p_input ->> 'thumbOffset')::numeric)::integer;
  end if;

  if p_input ? 'scheduledAt' then
    if jsonb_typeof(p_input -> 'scheduledAt') not in ('string', 'null') then
      raise exception 'scheduledAt must be a timestamp string' using errcode = 'PT422', hint = 'bad_time';
    end if;
    v_time := nullif(btrim(p_input ->> 'scheduledAt'), '');
    begin
      p.scheduled_at := v_time::timestamptz;
    exception when others then
      raise exception 'scheduledAt is not a timestamp' using errcode = 'PT422', hint = 'bad_time';
    end;
    if p.scheduled_at is not null and not isfinite(p.scheduled_at) then
      raise exception 'scheduledAt is not a timestamp' using errcode = 'PT422', hint = 'bad_time';
    end if;
  end if;

  if p_input ? 'status' then
    v_status := p_input ->> 'status';
    if jsonb_typeof(p_input -> 'status') <> 'string' or v_status not in ('draft', 'scheduled') then
      raise exception 'status can be set to draft or scheduled only'
        using errcode = 'PT422', hint = 'bad_status';
    end if;
    if (v_status = 'scheduled') <> (p.scheduled_at is not null) then
      raise exception 'A scheduled post needs a time and a draft has none'
        using errcode = 'PT422', hint = 'bad_time';
    end if;
  end if;
  p.status := case when p.scheduled_at is null then 'draft' else 'scheduled' end;
  return p;
end;
$$;

-- The caller's bot (SPEC "Publish queue": ?botID= fenced like a GraphQL bot): key-shaped, and
-- one of svc_my_bot_ids() (which refuses PT401 unauthenticated without a session).
create or replace function public.svc_post_fence(p_bot_id text)
returns void
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  if p_bot_id is null or p_bot_id !~ '^[A-Za-z0-9_-]{1,64}$' then
    raise exception 'The bot id is not key-shaped' using errcode = 'PT422', hint = 'bad_bot_id';
  end if;
  if not (p_bot_id = any (public.svc_my_bot_ids())) then
    raise exception 'That bot is not yours' using errcode = 'PT403', hint = 'bot_not_allowed';
  end if;
end;
$$;

-- The caller's post `p_id` of bot `p_bot_id`, locked; post_not_found for a non-uuid id too.
create or replace function public.svc_post_find(p_bot_id text, p_id text)
returns public.svc_posts
language plpgsql
security definer
set search_path = ''
as $$
declare
  p public.svc_posts;
begin
  if p_id is null or p_id !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    raise exception 'No such post' using errcode = 'PT404', hint = 'post_not_found';
  end if;
  select * into p from public.svc_posts where id = p_id::uuid and bot_id = p_bot_id for update;
  if not found then
    raise exception 'No such post' using errcode = 'PT404', hint = 'post_not_found';
  end if;
  return p;
end;
$$;

-- GET posts: the bot's posts, at most 1000, by time (drafts last), then creation.
create or replace function public.svc_posts_list(p_bot_id text)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  perform public.svc_post_fence(p_bot_id);
  return coalesce((
    select jsonb_agg(public.svc_post_json(p) order by p.scheduled_at nulls last, p.created_at, p.id)
      from (select * from public.svc_posts where bot_id = p_bot_id
             order by scheduled_at nulls last, created_at, id limit 1000) p
  ), '[]'::jsonb);
end;
$$;

-- POST posts: a new post of the bot from `p_post`.
create or replace function public.svc_post_create(p_bot_id text, p_post jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  p public.svc_posts;
begin
  perform public.svc_post_fence(p_bot_id);
  p.bot_id := p_bot_id;
  p.media := '[]'::jsonb;
  p := public.svc_post_apply(p, p_post);
  insert into public.svc_posts (bot_id, kind, media, caption, cover_url, share_to_feed,
                                thumb_offset, scheduled_at, status)
  values (p.bot_id, p.kind, p.media, p.caption, p.cover_url, p.share_to_feed, p.thumb_offset,
          p.scheduled_at, p.status)
  returning * into p;
  return public.svc_post_json(p);
end;
$$;

-- PATCH posts/<id>: edits a draft, scheduled or failed post (a failed one is rescheduled with its
-- attempts and error cleared); publishing or published: bad_status.
create or replace function public.svc_post_update(p_bot_id text, p_id text, p_patch jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  p public.svc_posts;
begin
  perform public.svc_post_fence(p_bot_id);
  p := public.svc_post_find(p_bot_id, p_id);
  if p.status in ('publishing', 'published') then
    raise exception 'A % post cannot be edited', p.status using errcode = 'PT409', hint = 'bad_status';
  end if;
  p := public.svc_post_apply(p, p_patch);
  update public.svc_posts
     set kind = p.kind, media = p.media, caption = p.caption, cover_url = p.cover_url,
         share_to_feed = p.share_to_feed, thumb_offset = p.thumb_offset,
         scheduled_at = p.scheduled_at, status = p.status, attempts = 0, last_error = null,
         claimed_at = null, taken_at = null, updated_at = now()
   where id = p.id
  returning * into p;
  return public.svc_post_json(p);
end;
$$;

-- DELETE posts/<id>: drops the post unless it is being published (bad_status). Answers {id}.
create or replace function public.svc_post_delete(p_bot_id text, p_id text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  p public.svc_posts;
begin
  perform public.svc_post_fence(p_bot_id);
  p := public.svc_post_find(p_bot_id, p_id);
  if p.status = 'publishing' then
    raise exception 'The post is being published' using errcode = 'PT409', hint = 'bad_status';
  end if;
  delete from public.svc_posts where id = p.id;
  return jsonb_build_object('id', p.id);
end;
$$;

revoke all on function
  public.svc_post_json(public.svc_posts),
  public.svc_post_check_url(jsonb, text),
  public.svc_post_apply(public.svc_posts, jsonb),
  public.svc_post_fence(text),
  public.svc_post_find(text, text),
  public.svc_posts_list(text),
  public.svc_post_create(text, jsonb),
  public.svc_post_update(text, text, jsonb),
  public.svc_post_delete(text, text)
  from public, anon, authenticated, service_role;

grant execute on function
  public.svc_posts_list(text),
  public.svc_post_create(text, jsonb),
  public.svc_post_update(text, text, jsonb),
  public.svc_post_delete(text, text)
  to authenticated;
