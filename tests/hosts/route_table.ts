/**
 * The route table every host runs, the same rows on each (SPEC "What the service
 * does" 6): health, forwarding, refusals that reach nothing upstream, 405, the
 * relay through a real graphql-ws client, a refused upgrade, and the security
 * headers on every answer. A host says how a gateway path becomes a request
 * target (a base path, or the serverless rewrite to `cfpath`).
 */
import assert from 'node:assert/strict';
import { createClient } from 'graphql-ws';
import { type Sandbox, SANDBOX_TOKEN } from '../../scripts/sandbox/mod.ts';
import {
  assertNothingReached,
  assertRefusal,
  assertSecurityHeaders,
  forwarded,
  rawRequest,
} from '../helpers/assertions.ts';

/** A host under test. */
export interface HostUnderTest {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  sandbox: Sandbox;
  /** The request target of a gateway path such as `/svc/graphql?op=x` (default: itself). */
  target?: (path: string) => string;
}

const QUERY = '{ currentUser { id } }';

function urlOf(host: HostUnderTest, path: string): string {
  return `${host.origin}${host.target ? host.target(path) : path}`;
}

function post(host: HostUnderTest, path: string, body: string, headers: Record<string, string>) {
  return fetch(urlOf(host, path), { method: 'POST', headers, body });
}

/** One row: a name and what it asserts. */
export interface RouteRow {
  name: string;
  run(host: HostUnderTest): Promise<void>;
}

/** The rows, in the order they run. */
export const ROUTE_TABLE: readonly RouteRow[] = [
  {
    name: 'health: 200 {ok:true}, no-store, security headers; POST 405 allow: GET, HEAD',
    async run(host) {
      const res = await fetch(urlOf(host, '/svc/healthz'));
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { ok: true });
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assertSecurityHeaders(res);
      const post = await fetch(urlOf(host, '/svc/healthz'), { method: 'POST', body: '{}' });
      assert.equal(post.status, 405);
      assert.equal(post.headers.get('allow'), 'GET, HEAD');
      assert.equal(await post.text(), '');
      assertSecurityHeaders(post);
    },
  },
  {
    name: 'forwarding: rebuilt, the token added, ?op= only, the answer back',
    async run(host) {
      const before = forwarded(host.sandbox).length;
      const res = await post(
        host,
        '/svc/graphql?debug=1&op=Other',
        JSON.stringify({ query: QUERY, stray: 1 }),
        { 'content-type': 'application/json', cookie: 'a=b', authorization: 'Bearer browser' },
      );
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.ok(body.data?.currentUser, JSON.stringify(body));
      assertSecurityHeaders(res);
      const seen = forwarded(host.sandbox).slice(before);
      assert.equal(seen.length, 1);
      assert.equal(seen[0].path, '/graphql');
      assert.equal(seen[0].headers.authorization, `Bearer ${SANDBOX_TOKEN}`);
      assert.equal(seen[0].headers.cookie, undefined);
      assert.deepEqual(seen[0].json, { query: QUERY });
    },
  },
  {
    name: 'refusals reach nothing upstream: media type, origin, REST path',
    async run(host) {
      await assertNothingReached(host.sandbox, async () => {
        await assertRefusal(
          await post(host, '/svc/graphql', JSON.stringify({ query: QUERY }), {
            'content-type': 'text/plain',
          }),
          415,
          'UnsupportedMediaType',
        );
        await assertRefusal(
          await post(host, '/svc/graphql', JSON.stringify({ query: QUERY }), {
            'content-type': 'application/json',
            origin: 'https://elsewhere.example',
            'sec-fetch-site': 'cross-site',
          }),
          403,
          'ProxyOriginForbidden',
        );
        await assertRefusal(
          await post(host, '/svc/api/elsewhere', 'x', { 'content-type': 'text/plain' }),
          403,
          'RestPathNotAllowed',
        );
      });
    },
  },
  {
    name: "a route that is not mounted is the host's 404, never the app's index.html",
    async run(host) {
      // gate off, no ADMIN_PASSWORD: auth, publishing and admin are not mounted (SPEC "Endpoints")
      for (
        const [method, path] of [
          ['GET', '/svc/publishing/config'],
          ['POST', '/svc/publishing/posts'],
          ['GET', '/svc/auth/bots'],
          ['GET', '/svc/admin'],
          ['GET', '/svc/elsewhere/page'],
        ]
      ) {
        const res = await fetch(urlOf(host, path), {
          method,
          headers: { accept: 'text/html' },
          body: method === 'POST' ? '{}' : undefined,
        });
        const text = await res.text();
        assert.equal(res.status, 404, `${method} ${path}: ${text.slice(0, 80)}`);
        assert.doesNotMatch(text, /<!doctype|<html|<title/i, `${method} ${path}`);
        assertSecurityHeaders(res);
      }
    },
  },
  {
    name: 'other methods on the GraphQL route: 405 with allow and an empty body',
    async run(host) {
      const res = await fetch(urlOf(host, '/svc/graphql'), { method: 'PUT', body: 'x' });
      assert.equal(res.status, 405);
      assert.ok(res.headers.get('allow')?.includes('POST'));
      assert.equal(await res.text(), '');
      assertSecurityHeaders(res);
    },
  },
  {
    name: 'relay: a real graphql-ws client gets its result through the host',
    async run(host) {
      const sockets = host.sandbox.sockets.length;
      const client = createClient({
        url: urlOf(host, '/svc/graphql').replace(/^http/, 'ws'),
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        lazy: true,
      });
      try {
        const result = await new Promise<unknown>((resolve, reject) => {
          client.subscribe({ query: QUERY }, { next: resolve, error: reject, complete: () => {} });
        });
        assert.ok((result as { data?: { currentUser?: unknown } }).data?.currentUser);
        assert.equal(host.sandbox.sockets.length, sockets + 1);
      } finally {
        await client.dispose();
      }
    },
  },
  {
    name: 'a refused upgrade is plain 403 before any socket, and reaches nothing',
    async run(host) {
      const { host: authority } = new URL(host.origin);
      const target = host.target ? host.target('/svc/graphql') : '/svc/graphql';
      await assertNothingReached(host.sandbox, async () => {
        const res = await rawRequest(
          host.origin,
          [
            `GET ${target} HTTP/1.1`,
            `host: ${authority}`,
            'connection: Upgrade',
            'upgrade: websocket',
            'sec-websocket-version: 13',
            'sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==',
            'sec-websocket-protocol: graphql-transport-ws',
            'origin: https://elsewhere.example',
          ].join('\r\n'),
        );
        assert.equal(res.status, 403);
      });
    },
  },
];

/** Runs every row of ROUTE_TABLE as a step of `t`. */
export async function runRouteTable(t: Deno.TestContext, host: HostUnderTest): Promise<void> {
  for (const row of ROUTE_TABLE) await t.step(row.name, () => row.run(host));
}
