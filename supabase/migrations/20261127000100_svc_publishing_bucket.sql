-- svc publishing bucket: the Storage bucket the publish queue's media go to, under the default
-- name of PUBLISHING_MEDIA_BUCKET ('svc-pub-media'). Public, since the upstream fetches each
-- media item by its public URL; objects up to the media ceiling (25 MiB = 26214400 bytes,
-- src/config/defaults.ts mediaFileBytes); the five publishable types (defaults.ts mediaTypes,
-- facts.json publishingMediaTypes). tests/publishing/bucket_test.ts checks these against the
-- defaults table.
--
-- A bucket of that id that already exists is left as it is (on conflict do nothing), and a
-- database without Supabase Storage's schema (no storage.buckets) is left alone, so the file is
-- safe to re-run and to apply anywhere. A deployment that sets PUBLISHING_MEDIA_BUCKET to another
-- name creates that bucket itself (public, same limits); POST /svc/publishing/register reports
-- the bucket's state.

do $$
begin
  if to_regclass('storage.buckets') is null then
    raise notice 'svc publishing bucket: no storage.buckets here; the bucket was not created';
    return;
  end if;
  execute $sql$
    insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
    values ('svc-pub-media', 'svc-pub-media', true, 26214400,
            array['image/jpeg', 'image/png', 'image/webp', 'video/mp4', 'video/quicktime'])
    on conflict (id) do nothing
  $sql$;
end
$$;
