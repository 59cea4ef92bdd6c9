-- svc publishing secret: the scheduler sends PUBLISHING_SECRET itself as x-svc-publish-key, and
-- the gateway compares it with its own PUBLISHING_SECRET (SPEC "Authentication" 5). The settings
-- row therefore keeps what the scheduler must send: the secret (column publish_secret). The
-- earlier column publish_key held a SHA-256 hex of the secret, which the gateway no longer
-- accepts; it is dropped, so a row registered before this migration has no secret until the
-- next POST /svc/publishing/register: until then svc_publishing_status answers registered false
-- (GET /config lists 'register' as missing) and the ticks call nothing back (the reaper still
-- runs). The table stays unreachable but through these service-role functions.
--
-- Safe to re-run. Needs 20261124000000_svc_publishing.sql, 20261124000500_svc_publishing_scheduler.sql
-- and 20261124002000_svc_publishing_media_sweep.sql (it replaces functions of both).

alter table public.svc_publishing_settings add column if not exists publish_secret text;
alter table public.svc_publishing_settings drop column if exists publish_key;

-- Refuses a key that is not the registered secret (bad_secret); compared as hashes, so the
-- comparison takes the same time whatever the key.
create or replace function public.svc_publish_key_check(p_key text)
returns void
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_secret text;
begin
  select publish_secret into v_secret from public.svc_publishing_settings where id;
  if v_secret is null or p_key is null
     or sha256(convert_to(v_secret, 'UTF8')) <> sha256(convert_to(p_key, 'UTF8')) then
    raise exception 'Not allowed' using errcode = 'PT401', hint = 'bad_secret';
  end if;
end;
$$;

-- Registration (POST /register): the callback url (https, or http on localhost / 127.0.0.1),
-- PUBLISHING_SECRET (what the scheduler sends as x-svc-publish-key: 1 to 1024 visible ASCII
-- characters, as an HTTP header carries it; else bad_secret) and the hosting platform's bypass
-- secret, if any. Schedules the pg_cron jobs when pg_cron exists.
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
  if p_publish_key is null or length(p_publish_key) > 1024 or p_publish_key !~ '^[\x21-\x7e]+$' then
    raise exception 'The publishing secret is 1 to 1024 visible ASCII characters'
      using errcode = 'PT422', hint = 'bad_secret';
  end if;
  insert into public.svc_publishing_settings (id, callback_url, publish_secret, bypass_secret)
  values (true, p_callback_url, p_publish_key, nullif(p_bypass_secret, ''))
  on conflict (id) do update
    set callback_url = excluded.callback_url, publish_secret = excluded.publish_secret,
        bypass_secret = excluded.bypass_secret, registered_at = now();
  return jsonb_build_object(
    'callbackUrl', p_callback_url,
    'bypass', p_bypass_secret is not null and p_bypass_secret <> '',
    'scheduled', public.svc_publishing_schedule()
  );
end;
$$;

-- Whether a registration with a secret exists, and its callback url (never a secret).
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
       from public.svc_publishing_settings where id and publish_secret is not null),
    jsonb_build_object('registered', false, 'callbackUrl', null, 'registeredAt', null))
$$;

-- The headers of every scheduler call back: the secret, and the bypass secret when recorded.
-- Null without a registration holding a secret.
create or replace function public.svc_publishing_callback_headers()
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select jsonb_build_object('content-type', 'application/json', 'x-svc-publish-key', publish_secret)
         || case when bypass_secret is not null
                 then jsonb_build_object('x-vercel-protection-bypass', bypass_secret)
                 else '{}'::jsonb end
    from public.svc_publishing_settings
   where id and publish_secret is not null
$$;

-- One scheduler tick (the pg_cron job, each minute): reap, then claim up to 20 due posts and call
-- back POST <callback_url> {id} with x-svc-publish-key through pg_net's net.http_post (timeout
-- 300000 ms). Without a registration holding a secret, or without pg_net, it claims nothing.
-- Answers the calls made.
create or replace function public.svc_publish_tick()
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_url text;
  v_headers jsonb;
  v_id uuid;
  v_n integer := 0;
begin
  perform public.svc_posts_reap(10, 3);
  select callback_url into v_url from public.svc_publishing_settings where id;
  v_headers := public.svc_publishing_callback_headers();
  if v_headers is null or to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)') is null then
    return 0;
  end if;
  for v_id in select * from public.svc_posts_claim(20) loop
    perform net.http_post(
      url := v_url,
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

-- One media sweep request through pg_net (POST <callback base>/media-sweep with the secret);
-- nothing without a registration holding a secret, or without pg_net. Answers the calls made.
create or replace function public.svc_media_sweep_tick()
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_url text;
  v_headers jsonb;
begin
  select callback_url into v_url from public.svc_publishing_settings where id;
  v_headers := public.svc_publishing_callback_headers();
  if v_headers is null or to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)') is null then
    return 0;
  end if;
  perform net.http_post(
    url := regexp_replace(v_url, '/publish-due$', '/media-sweep'),
    body := '{}'::jsonb,
    params := '{}'::jsonb,
    headers := v_headers,
    timeout_milliseconds := 300000
  );
  return 1;
end;
$$;

revoke all on function
  public.svc_publish_key_check(text),
  public.svc_publishing_register(text, text, text),
  public.svc_publishing_status(),
  public.svc_publishing_callback_headers(),
  public.svc_publish_tick(),
  public.svc_media_sweep_tick()
  from public, anon, authenticated, service_role;

grant execute on function
  public.svc_publishing_register(text, text, text),
  public.svc_publishing_status(),
  public.svc_publish_tick(),
  public.svc_media_sweep_tick()
  to service_role;
