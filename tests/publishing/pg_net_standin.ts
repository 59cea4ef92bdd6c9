/**
 * A stand-in for pg_net's `net.http_post` (pg_net is not packaged for this PostgreSQL): same
 * schema, name and signature (`net.http_post(url text, body jsonb, params jsonb, headers jsonb,
 * timeout_milliseconds integer) returns bigint`), but it only records the call in
 * `net.standin_calls`. A test then makes the recorded call to the gateway itself.
 */
import type pg from 'pg';

/** The SQL that installs the stand-in (run as the superuser, once per database). */
export const PG_NET_STANDIN_SQL = `
create schema if not exists net;
create table if not exists net.standin_calls (
  id bigserial primary key,
  url text not null,
  body jsonb,
  params jsonb,
  headers jsonb,
  timeout_milliseconds integer
);
create or replace function net.http_post(
  url text,
  body jsonb default '{}'::jsonb,
  params jsonb default '{}'::jsonb,
  headers jsonb default '{"Content-Type": "application/json"}'::jsonb,
  timeout_milliseconds integer default 5000
) returns bigint
language sql
as $$
  insert into net.standin_calls (url, body, params, headers, timeout_milliseconds)
  values (url, body, params, headers, timeout_milliseconds)
  returning id
$$;
`;

/** One recorded call. */
export interface RecordedPost {
  url: string;
  body: { id: string };
  headers: Record<string, string>;
  timeout_milliseconds: number;
}

/** Something that runs SQL as the superuser (a seed, a pg client). */
export type Sql = { query: (sql: string, params?: unknown[]) => Promise<pg.QueryResult> };

/** Installs the stand-in. */
export async function installPgNetStandin(db: Sql): Promise<void> {
  await db.query(PG_NET_STANDIN_SQL);
}

/** Takes (reads and clears) the calls recorded so far, in order. */
export async function takeRecordedPosts(db: Sql): Promise<RecordedPost[]> {
  const result = await db.query(
    `delete from net.standin_calls returning id, url, body, headers, timeout_milliseconds`,
  );
  return (result.rows as (RecordedPost & { id: number })[])
    .sort((a, b) => Number(a.id) - Number(b.id))
    .map(({ url, body, headers, timeout_milliseconds }) => ({
      url,
      body,
      headers,
      timeout_milliseconds,
    }));
}

/** Makes a recorded call to `gatewayUrl` (same path, body and headers as pg_net would send). */
export function replay(call: RecordedPost, gatewayUrl: string): Promise<Response> {
  const path = new URL(call.url).pathname;
  return fetch(`${gatewayUrl}${path}`, {
    method: 'POST',
    headers: call.headers,
    body: JSON.stringify(call.body),
  });
}
