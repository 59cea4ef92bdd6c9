-- svc publishing media sweep: the scheduled removal of media objects no post references once
-- older than PUBLISHING_MEDIA_TTL_DAYS (SPEC option mediaTtlDays). Storage objects can
-- only be removed through the Storage API, which the database cannot call without the
-- service-role key, so the daily job calls the gateway back (POST <callback base>/media-sweep with
-- the publish key); the gateway asks svc_media_expired(<its TTL>) and removes those objects.
--
-- Safe to re-run. Needs 20261124000000_svc_publishing.sql and 20261124001000_svc_publishing_media.sql.

-- One sweep request through pg_net (nothing without a registration or pg_net). Answers the calls
-- made (0 or 1).
create or replace function public.svc_media_sweep_tick()
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  s public.svc_publishing_settings;
  v_headers jsonb;
begin
  select * into s from public.svc_publishing_settings where id;
  if not found or to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)') is null then
    return 0;
  end if;
  v_headers := jsonb_build_object('content-type', 'application/json',
                                  'x-svc-publish-key', s.publish_key);
  if s.bypass_secret is not null then
    v_headers := v_headers || jsonb_build_object('x-vercel-protection-bypass', s.bypass_secret);
  end if;
  perform net.http_post(
    url := regexp_replace(s.callback_url, '/publish-due$', '/media-sweep'),
    body := '{}'::jsonb,
    params := '{}'::jsonb,
    headers := v_headers,
    timeout_milliseconds := 300000
  );
  return 1;
end;
$$;

-- (Re)schedules the pg_cron jobs: svc-publish-tick and svc-publish-reap each minute, and
-- svc-media-sweep daily at 03:17; false when pg_cron is not installed.
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
  perform cron.schedule('svc-media-sweep', '17 3 * * *', 'select public.svc_media_sweep_tick()');
  return true;
end;
$$;

revoke all on function public.svc_media_sweep_tick(), public.svc_publishing_schedule()
  from public, anon, authenticated, service_role;
grant execute on function public.svc_media_sweep_tick() to service_role;

do $$
begin
  perform public.svc_publishing_schedule();
end
$$;
