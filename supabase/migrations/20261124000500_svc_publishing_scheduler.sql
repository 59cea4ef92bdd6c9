-- svc publishing scheduler: claim, reap, the callback's take and report, registration and the
-- pg_cron jobs of the publish queue (SPEC "Publish queue: /svc/publishing", "Authentication" 5;
-- facts.json "publishingPostRules.scheduler"). Tables and the posts functions are in
-- 20261124000000_svc_publishing.sql; the lifecycle is described there.
--
-- Safe to re-run. Service role only (the gateway's callback and register, and pg_cron itself).

-- Scheduler side (service_role) ------------------------------------------------------------------

-- Claims up to `p_limit` due scheduled posts (flips them to publishing, counts an attempt).
-- Concurrent claimers never take the same row (skip locked). Answers the claimed ids.
create or replace function public.svc_posts_claim(p_limit integer default 20)
returns setof uuid
language sql
security definer
set search_path = ''
as $$
  update public.svc_posts p
     set status = 'publishing', claimed_at = now(), taken_at = null,
         attempts = p.attempts + 1, updated_at = now()
   where p.id in (
     select id from public.svc_posts
      where status = 'scheduled' and scheduled_at <= now()
      order by scheduled_at, id
      limit greatest(p_limit, 0)
      for update skip locked)
  returning p.id
$$;

-- Returns posts stuck in publishing longer than `p_after_minutes` to scheduled (no callback took
-- them), or to failed once `p_max_attempts` were spent, or when a callback took the post but no
-- outcome was recorded (it may have been published: retrying could publish it twice). Answers how
-- many it moved.
create or replace function public.svc_posts_reap(
  p_after_minutes integer default 10,
  p_max_attempts integer default 3
)
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_n integer;
begin
  update public.svc_posts
     set status = case when taken_at is not null or attempts >= p_max_attempts then 'failed'
                       else 'scheduled' end,
         last_error = case
                        when taken_at is not null
                          then 'The publish outcome was never recorded; check the account before rescheduling'
                        when attempts >= p_max_attempts
                          then 'No publish outcome after ' || attempts || ' attempts'
                        else last_error end,
         claimed_at = null, taken_at = null, updated_at = now()
   where status = 'publishing'
     and claimed_at < now() - make_interval(mins => p_after_minutes);
  get diagnostics v_n = row_count;
  return v_n;
end;
$$;

-- Refuses a publish key that is not the registered one (bad_secret); compared as hashes.
create or replace function public.svc_publish_key_check(p_key text)
returns void
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_key text;
begin
  select publish_key into v_key from public.svc_publishing_settings where id;
  if v_key is null or p_key is null
     or sha256(convert_to(v_key, 'UTF8')) <> sha256(convert_to(p_key, 'UTF8')) then
    raise exception 'Not allowed' using errcode = 'PT401', hint = 'bad_secret';
  end if;
end;
$$;

-- The callback takes claimed post `p_id` (once: a second take is not_claimed). Answers the post
-- with its bot id, for the gateway to build the publish input.
create or replace function public.svc_post_take(p_id text, p_key text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  p public.svc_posts;
begin
  perform public.svc_publish_key_check(p_key);
  if p_id is null or p_id !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    raise exception 'No such post' using errcode = 'PT404', hint = 'post_not_found';
  end if;
  update public.svc_posts set taken_at = now(), updated_at = now()
   where id = p_id::uuid and status = 'publishing' and taken_at is null
  returning * into p;
  if found then
    return public.svc_post_json(p);
  end if;
  if exists (select 1 from public.svc_posts where id = p_id::uuid) then
    raise exception 'Nothing claimed that post' using errcode = 'PT409', hint = 'not_claimed';
  end if;
  raise exception 'No such post' using errcode = 'PT404', hint = 'post_not_found';
end;
$$;

-- Records the outcome of a taken post: 'published' (https permalink, media id) or 'failed'
-- (the upstream's reason). not_claimed unless the post is publishing and taken.
create or replace function public.svc_post_report(
  p_id text,
  p_key text,
  p_outcome text,
  p_permalink text default null,
  p_media_id text default null,
  p_error text default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  p public.svc_posts;
begin
  perform public.svc_publish_key_check(p_key);
  if p_outcome not in ('published', 'failed') then
    raise exception 'An outcome is published or failed' using errcode = 'PT422', hint = 'bad_status';
  end if;
  if p_outcome = 'published' and p_permalink is not null then
    begin
      perform public.svc_post_check_url(to_jsonb(p_permalink), 'The permalink');
    exception when others then
      raise exception 'The permalink is not an https URL' using errcode = 'PT422', hint = 'bad_permalink';
    end;
  end if;
  if p_id is null or p_id !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    raise exception 'No such post' using errcode = 'PT404', hint = 'post_not_found';
  end if;
  update public.svc_posts
     set status = p_outcome,
         permalink = case when p_outcome = 'published' then p_permalink else permalink end,
         published_media_id = case when p_outcome = 'published' then p_media_id else published_media_id end,
         last_error = case when p_outcome = 'failed' then left(coalesce(p_error, 'The publish failed'), 1000) else null end,
         claimed_at = null, updated_at = now()
   where id = p_id::uuid and status = 'publishing' and taken_at is not null
  returning * into p;
  if not found then
    if exists (select 1 from public.svc_posts where id = p_id::uuid) then
      raise exception 'Nothing claimed that post' using errcode = 'PT409', hint = 'not_claimed';
    end if;
    raise exception 'No such post' using errcode = 'PT404', hint = 'post_not_found';
  end if;
  return public.svc_post_json(p);
end;
$$;

-- Registration (POST /register): the callback url (https, or http on localhost / 127.0.0.1), the
-- publish key (a hash of PUBLISHING_SECRET: the raw secret never enters the database) and the
-- hosting platform's bypass secret, if any. Schedules the pg_cron jobs when pg_cron exists.
create or replace function public.svc_publishing_register(
  p_callback_url text,
  p_publish_key text,
  p_bypass_secret text default null
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_callback_url is null
     or p_callback_url !~ '^(https://[^\s/?#@]+|http://(localhost|127\.0\.0\.1))(:[0-9]+)?(/\S*)?$' then
    raise exception 'The callback url must be https (http only on localhost)'
      using errcode = 'PT422', hint = 'insecure_url';
  end if;
  if p_publish_key is null or p_publish_key !~ '^[0-9a-f]{64}$' then
    raise exception 'The publish key is a sha-256 hex digest' using errcode = 'PT422', hint = 'bad_secret';
  end if;
  insert into public.svc_publishing_settings (id, callback_url, publish_key, bypass_secret)
  values (true, p_callback_url, p_publish_key, nullif(p_bypass_secret, ''))
  on conflict (id) do update
    set callback_url = excluded.callback_url, publish_key = excluded.publish_key,
        bypass_secret = excluded.bypass_secret, registered_at = now();
  return jsonb_build_object(
    'callbackUrl', p_callback_url,
    'bypass', p_bypass_secret is not null and p_bypass_secret <> '',
    'scheduled', public.svc_publishing_schedule()
  );
end;
$$;

-- Whether a registration exists and its callback url (never the key or bypass secret).
create or replace function public.svc_publishing_status()
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(
    (select jsonb_build_object('registered', true, 'callbackUrl', callback_url,
                               'registeredAt', to_char(registered_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
       from public.svc_publishing_settings where id),
    jsonb_build_object('registered', false, 'callbackUrl', null, 'registeredAt', null))
$$;

-- One scheduler tick (the pg_cron job, each minute): reap, then claim up to 20 due posts and call
-- back POST <callback_url> {id} with x-svc-publish-key through pg_net's net.http_post (timeout
-- 300000 ms). Without a registration or without pg_net it claims nothing. Answers the calls made.
create or replace function public.svc_publish_tick()
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  s public.svc_publishing_settings;
  v_id uuid;
  v_headers jsonb;
  v_n integer := 0;
begin
  perform public.svc_posts_reap(10, 3);
  select * into s from public.svc_publishing_settings where id;
  if not found or to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)') is null then
    return 0;
  end if;
  v_headers := jsonb_build_object('content-type', 'application/json',
                                  'x-svc-publish-key', s.publish_key);
  if s.bypass_secret is not null then
    v_headers := v_headers || jsonb_build_object('x-vercel-protection-bypass', s.bypass_secret);
  end if;
  for v_id in select * from public.svc_posts_claim(20) loop
    perform net.http_post(
      url := s.callback_url,
      body := jsonb_build_object('id', v_id),
      params := '{}'::jsonb,
      headers := v_headers,
      timeout_milliseconds := 300000
    );
    v_n := v_n + 1;
  end loop;
  return v_n;
end;
$$;

-- (Re)schedules the pg_cron jobs svc-publish-tick and svc-publish-reap ('* * * * *'); false when
-- pg_cron is not installed. cron.schedule replaces a job of the same name.
create or replace function public.svc_publishing_schedule()
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
begin
  if to_regprocedure('cron.schedule(text,text,text)') is null then
    return false;
  end if;
  perform cron.schedule('svc-publish-tick', '* * * * *', 'select public.svc_publish_tick()');
  perform cron.schedule('svc-publish-reap', '* * * * *', 'select public.svc_posts_reap(10, 3)');
  return true;
end;
$$;

revoke all on function
  public.svc_posts_claim(integer),
  public.svc_posts_reap(integer, integer),
  public.svc_publish_key_check(text),
  public.svc_post_take(text, text),
  public.svc_post_report(text, text, text, text, text, text),
  public.svc_publishing_register(text, text, text),
  public.svc_publishing_status(),
  public.svc_publish_tick(),
  public.svc_publishing_schedule()
  from public, anon, authenticated, service_role;

grant execute on function
  public.svc_posts_claim(integer),
  public.svc_posts_reap(integer, integer),
  public.svc_post_take(text, text),
  public.svc_post_report(text, text, text, text, text, text),
  public.svc_publishing_register(text, text, text),
  public.svc_publishing_status(),
  public.svc_publish_tick()
  to service_role;

do $$
begin
  perform public.svc_publishing_schedule();
end
$$;
