/**
 * SPEC "Options": `upstream` / SVC_API_BASE ("trailing slashes trimmed") and the path options
 * `httpPath`, `wsPath` ("same as httpPath"), `apiPath`, `authPath`, `publishingPath` and
 * `adminPath`, on both hosts: each route answers at its configured prefix and the default prefix
 * is no longer claimed (the host's own plain 404, nothing reached the upstream).
 */
import assert from 'node:assert/strict';
import { createClient } from 'graphql-ws';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { resolveConfig } from '../../src/config/resolve.ts';
import {
  assertNothingReached,
  assertRefusal,
  forwarded,
  postGraphql,
} from '../helpers/assertions.ts';
import type { Env } from '../../mod.ts';
import { type Sandbox, startSandbox } from '../../scripts/sandbox/mod.ts';
import {
  type Gateway,
  type HostKind,
  HOSTS,
  startGateway,
  type TestOptions,
} from '../helpers/gateway.ts';
import { sandboxEnv } from '../helpers/setup.ts';

const QUERY = '{ currentUser { id } }';

/** The host's own 404 for a path the gateway does not claim (plain text, not an envelope). */
async function assertUnclaimed(res: Response): Promise<void> {
  const text = await res.text();
  assert.equal(res.status, 404, text);
  assert.equal(text, 'Not Found');
}

/** Whether an upgrade on `path` is accepted (the socket opens) or not claimed. */
function upgradeOpens(url: string, path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`, 'graphql-transport-ws');
    ws.onopen = () => {
      ws.close();
      resolve(true);
    };
    ws.onerror = () => resolve(false);
  });
}

function upload(url: string, path: string): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(10).fill(65)], { type: 'image/png' }), 'a.png');
  return fetch(`${url}${path}?botID=${WORLD_IDS.bot1}`, { method: 'POST', body: form });
}

Deno.test('SVC_API_BASE and option upstream lose their trailing slashes', () => {
  const env = { SVC_TOKEN: 't' };
  assert.equal(
    resolveConfig({}, { ...env, SVC_API_BASE: 'http://u.example/v1///' }).upstream,
    'http://u.example/v1',
  );
  assert.equal(resolveConfig({ upstream: 'http://u.example/' }, env).upstream, 'http://u.example');
});

/** A sandbox and a gateway on `kind` with `options` over the sandbox's environment and `env`. */
async function withPaths(
  kind: HostKind,
  options: TestOptions,
  env: (sandbox: Sandbox) => Env,
  body: (sandbox: Sandbox, url: string) => Promise<void>,
): Promise<void> {
  const sandbox = await startSandbox();
  let gateway: Gateway | null = null;
  try {
    gateway = await startGateway(kind, options, sandboxEnv(sandbox, env(sandbox)));
    await body(sandbox, gateway.url);
  } finally {
    await gateway?.stop();
    await sandbox.close();
  }
}

/** The gate on over a backend that is never asked (no bearer is sent), and the admin panel. */
const GATED: Env = {
  CLIENT_BACKEND_URL: 'http://127.0.0.1:9',
  CLIENT_BACKEND_ANON_KEY: 'anon-key',
  BACKEND_SERVICE_ROLE_KEY: 'service-role-key',
  SVC_SHARED_LIMITS: 'off',
  SVC_RESOURCE_STORE: 'off',
  SVC_WORKSPACE_ID: 'w1',
  ADMIN_PASSWORD: 'a-password-of-twenty-chars',
};

for (const kind of HOSTS) {
  Deno.test(`[${kind}] httpPath moves the GraphQL route and the relay (wsPath follows), apiPath the uploads`, async () => {
    await withPaths(
      kind,
      { httpPath: '/x/gql', apiPath: '/x/api' },
      (sandbox) => ({ SVC_API_BASE: `${sandbox.url}///` }),
      async (sandbox, url) => {
        const res = await postGraphql(url, { query: QUERY }, {}, '/x/gql');
        assert.equal(res.status, 200, await res.text());
        const seen = forwarded(sandbox).at(-1)!;
        assert.equal(seen.path, '/graphql', 'SVC_API_BASE lost its trailing slashes');

        const client = createClient({
          url: `${url.replace(/^http/, 'ws')}/x/gql`,
          webSocketImpl: WebSocket,
          retryAttempts: 0,
          lazy: true,
        });
        try {
          const result = await new Promise<unknown>((resolve, reject) => {
            client.subscribe({ query: QUERY }, {
              next: resolve,
              error: reject,
              complete: () => {},
            });
          });
          assert.ok((result as { data?: { currentUser?: unknown } }).data?.currentUser);
          assert.equal(sandbox.sockets.length, 1, 'relayed at wsPath = httpPath');
        } finally {
          await client.dispose();
        }

        const uploaded = await upload(url, '/x/api/filestorage/upload/bot');
        assert.equal(uploaded.status, 200, await uploaded.text());
        assert.equal(forwarded(sandbox).at(-1)!.path, '/api/filestorage/upload/bot');

        await assertNothingReached(sandbox, async () => {
          await assertUnclaimed(await postGraphql(url, { query: QUERY }));
          await assertUnclaimed(await upload(url, '/svc/api/filestorage/upload/bot'));
          assert.equal(await upgradeOpens(url, '/svc/graphql'), false);
        });
      },
    );
  });

  Deno.test(`[${kind}] wsPath, authPath, publishingPath and adminPath move their routes`, async () => {
    await withPaths(
      kind,
      { wsPath: '/x/ws', authPath: '/x/auth', publishingPath: '/x/pub', adminPath: '/x/admin' },
      () => GATED,
      async (sandbox, url) => {
        await assertNothingReached(sandbox, async () => {
          // claimed at the new prefixes: the gateway's own answers
          await assertRefusal(
            await fetch(`${url}/x/auth/provision`, { method: 'POST' }),
            401,
            'AuthSessionRequired',
          );
          await assertRefusal(await fetch(`${url}/x/pub/config`), 401, 'AuthSessionRequired');
          const session = await fetch(`${url}/x/admin/session`);
          assert.notEqual(session.status, 404, await session.text());
          assert.equal(await upgradeOpens(url, '/x/ws'), true);
          // the GraphQL POST stays at its default path; the upgrade does not
          await assertRefusal(await postGraphql(url, { query: QUERY }), 401, 'AuthSessionRequired');
          assert.equal(await upgradeOpens(url, '/svc/graphql'), false);
          // the default prefixes are no longer claimed
          await assertUnclaimed(await fetch(`${url}/svc/auth/provision`, { method: 'POST' }));
          await assertUnclaimed(await fetch(`${url}/svc/publishing/config`));
          await assertUnclaimed(await fetch(`${url}/svc/admin/session`));
        });
      },
    );
  });
}
