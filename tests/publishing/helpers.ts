/**
 * The publish queue's HTTP suites share this world: a real PostgreSQL with the migrations and
 * the pg_net stand-in, the PostgREST-compatible endpoint behind the fake Storage API (one
 * project URL; its buckets are the database's storage.buckets, where the migrations made
 * BUCKET), the sandbox upstream, an owner of bot 1, a stranger owning bot 3, an account
 * without bots, and gateways on either host.
 */
import { type Env } from '../../mod.ts';
import { type Backend, startBackend } from '../fixtures/db/backend.ts';
import type { PostgresCluster } from '../fixtures/db/postgres.ts';
import { type FakeStorage, startFakeStorage } from '../fixtures/storage/fake_storage.ts';
import { type Gateway, type HostKind, startGateway, type TestOptions } from '../helpers/gateway.ts';
import { type Sandbox, SANDBOX_TOKEN, startSandbox, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { installPgNetStandin } from './pg_net_standin.ts';

export const SECRET = 'publishing-secret-never-shown-0123';
export const ADMIN_PASSWORD = 'operator-password-0123456789';
export const PUBLIC_URL = 'https://app.example.test';
export const BUCKET = 'svc-pub-media';
export const BOT = WORLD_IDS.bot1;
export const OTHER_BOT = WORLD_IDS.bot3;

/** Everything a publishing test talks to. */
export interface World {
  backend: Backend;
  storage: FakeStorage;
  sandbox: Sandbox;
  /** Bearer tokens: owner of BOT, stranger owning OTHER_BOT, an account with no bot. */
  owner: string;
  stranger: string;
  botless: string;
  /** The gateway environment of a fully configured deployment. */
  env: Env;
  stop(): Promise<void>;
}

/** Builds the world on `cluster` (fresh database). */
export async function startWorld(cluster: PostgresCluster): Promise<World> {
  const backend = await startBackend(cluster);
  await installPgNetStandin(backend.seed);
  const storage = startFakeStorage({
    fallback: backend.rest.url,
    apiKeys: [backend.rest.anonKey, backend.rest.serviceRoleKey],
    serviceRoleKey: backend.rest.serviceRoleKey,
    database: backend.connectionString,
  });
  const sandbox = await startSandbox();
  const issuer = `${storage.url}/auth/v1`;
  const ownerId = await backend.seed.createUser('owner@example.test');
  await backend.seed.createBot(await backend.seed.createWorkspace('Acme', ownerId), 'B1', BOT);
  const strangerId = await backend.seed.createUser('stranger@example.test');
  await backend.seed.createBot(
    await backend.seed.createWorkspace('Other', strangerId),
    'B3',
    OTHER_BOT,
  );
  const botlessId = await backend.seed.createUser('botless@example.test');
  await backend.seed.createWorkspace('Empty', botlessId);
  return {
    backend,
    storage,
    sandbox,
    owner: await backend.rest.mintUserToken(ownerId, { issuer }),
    stranger: await backend.rest.mintUserToken(strangerId, { issuer }),
    botless: await backend.rest.mintUserToken(botlessId, { issuer }),
    env: {
      CLIENT_BACKEND_URL: storage.url,
      CLIENT_BACKEND_ANON_KEY: backend.rest.anonKey,
      BACKEND_SERVICE_ROLE_KEY: backend.rest.serviceRoleKey,
      SVC_API_BASE: sandbox.url,
      SVC_TOKEN: SANDBOX_TOKEN,
      PUBLISHING_SECRET: SECRET,
      PUBLIC_URL,
      ADMIN_PASSWORD,
    },
    async stop() {
      await sandbox.close();
      await storage.stop();
      await backend.stop();
    },
  };
}

/** Starts a gateway of `kind` over the world's env with `overrides` (undefined deletes). */
export function gatewayOf(
  kind: HostKind,
  world: World,
  overrides: Record<string, string | undefined> = {},
  options: TestOptions = {},
): Promise<Gateway> {
  const env: Record<string, string | undefined> = { ...world.env };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return startGateway(kind, options, env);
}

/** Calls `<gateway>/svc/publishing<path>` with the bearer (if any) and a JSON body (if any). */
export function pub(
  url: string,
  path: string,
  init: { method?: string; bearer?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
  let body: string | undefined;
  if (init.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  }
  return fetch(`${url}/svc/publishing${path}`, { method: init.method ?? 'GET', headers, body });
}
