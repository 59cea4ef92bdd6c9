/**
 * Options exercised through their variable or option, on both hosts as a deployment sets them
 * (SPEC "Options"), and the startup line's facts (SPEC "Startup behaviour and hosts"):
 *
 * - WS_MAX_SOCKETS: past it the upgrade is refused 503 before any socket exists;
 * - WS_PRE_AUTH_SOCKETS: past it (sockets awaiting admission) the same;
 * - wsInitTimeoutMs: no connection_init within it closes 4408; 5000 by default, as the running
 *   proxy resolves it;
 * - the resolved-configuration line names the mounted routes, the resource-fence mode and the
 *   admin panel's state.
 *
 * The numbers are written here from the spec.
 */
import assert from 'node:assert/strict';
import { createSvcProxy } from '../../mod.ts';
import { type Gateway, HOSTS, startGateway } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';
import { SANDBOX_TOKEN } from '../../scripts/sandbox/mod.ts';
import {
  closeClient,
  initialisedClient,
  rawClient,
  upgradeStatus as upgradeStatusOf,
} from '../relay/fixture_hosts/fixtures/clients.ts';

const PASSWORD = 'operator-password-0123456789';

/** The status of an upgrade to the relay path (plain HTTP when refused; 101 read, then dropped). */
function upgradeStatus(url: string): Promise<number> {
  return upgradeStatusOf(Number(new URL(url).port), '/svc/graphql', 'graphql-transport-ws');
}

/** Polls `check` every 20 ms, 5 s at most. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const wsUrl = (gateway: Gateway) => `${gateway.url.replace('http', 'ws')}/svc/graphql`;

for (const kind of HOSTS) {
  Deno.test(`[${kind}] WS_MAX_SOCKETS: the third upgrade of 2 is refused 503`, async () => {
    await withGateway(kind, { env: { WS_MAX_SOCKETS: '2' } }, async ({ sandbox, gateway }) => {
      const a = await initialisedClient(wsUrl(gateway));
      const b = await initialisedClient(wsUrl(gateway));
      const sockets = sandbox.sockets.length;
      assert.equal(await upgradeStatus(gateway.url), 503);
      assert.equal(sandbox.sockets.length, sockets, 'no socket reached the upstream');
      await closeClient(a);
      await eventually(async () => (await upgradeStatus(gateway.url)) !== 503, 'a slot again');
      await closeClient(b);
    });
  });

  Deno.test(`[${kind}] WS_PRE_AUTH_SOCKETS: a second socket awaiting admission is refused 503`, async () => {
    await withGateway(kind, { env: { WS_PRE_AUTH_SOCKETS: '1' } }, async ({ sandbox, gateway }) => {
      const waiting = rawClient(wsUrl(gateway));
      await waiting.opened;
      const sockets = sandbox.sockets.length;
      await eventually(async () => (await upgradeStatus(gateway.url)) === 503, 'refused');
      assert.equal(sandbox.sockets.length, sockets, 'no socket reached the upstream');
      waiting.send({ type: 'connection_init' });
      assert.equal((await waiting.next()).type, 'connection_ack');
      await eventually(async () => (await upgradeStatus(gateway.url)) !== 503, 'admitted again');
      await closeClient(waiting);
    });
  });

  Deno.test(`[${kind}] wsInitTimeoutMs: no connection_init in time closes 4408`, async () => {
    await withGateway(kind, { options: { wsInitTimeoutMs: 200 } }, async ({ sandbox, gateway }) => {
      const silent = rawClient(wsUrl(gateway));
      await silent.opened;
      // the option's 200 ms plus a margin for scheduling, well short of the default's 5 s
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve('still open after 3 s'), 3_000);
      });
      const closed = await Promise.race([silent.closed, late]).finally(() => clearTimeout(timer));
      assert.deepEqual(closed, { code: 4408, reason: 'Connection initialisation timeout' });
      assert.equal(sandbox.sockets.length, 0, 'no socket reached the upstream');
    });
  });

  Deno.test(`[${kind}] the startup line names the routes, the resource fence and the admin panel`, async () => {
    const lineOf = async (env: Record<string, string>) => {
      const gateway = await startGateway(kind, {}, {
        SVC_TOKEN: SANDBOX_TOKEN,
        SVC_API_BASE: 'http://127.0.0.1:9',
        ...env,
      });
      try {
        const line = gateway.lines.find((l) => l.startsWith('svc-gateway: gate '));
        assert.ok(line, gateway.lines.join('\n'));
        return line;
      } finally {
        await gateway.stop();
      }
    };
    const plain = await lineOf({});
    assert.match(plain, /gate off \(routes: graphql, ws, api\);/);
    assert.match(plain, /; resource fence off;/);
    assert.match(plain, /; admin panel off;/);
    const panel = await lineOf({ ADMIN_PASSWORD: PASSWORD, SVC_RESOURCE_FENCE: 'strict' });
    assert.match(panel, /gate off \(routes: graphql, ws, api, admin\);/);
    assert.match(panel, /; resource fence strict;/);
    assert.match(panel, /; admin panel on;/);
    const weak = await lineOf({ ADMIN_PASSWORD: PASSWORD.slice(0, 15) });
    assert.match(weak, /; admin panel misconfigured;/);
    // gate on with a service-role key: every group; the fence bound with the shared store
    const gated = await lineOf({
      CLIENT_BACKEND_URL: 'http://127.0.0.1:9',
      CLIENT_BACKEND_ANON_KEY: 'anon',
      BACKEND_SERVICE_ROLE_KEY: 'service',
      SVC_WORKSPACE_ID: 'w',
    });
    assert.match(
      gated,
      /gate on \(routes: graphql, ws, api, auth, recovery-link, publishing\);/,
    );
    assert.match(gated, /; resource fence bound with shared store;/);
  });
}

Deno.test('the running proxy resolves wsInitTimeoutMs to 5000 ms, sockets to 256 and 32', () => {
  const proxy = createSvcProxy({ loopbackOnly: true }, { SVC_TOKEN: SANDBOX_TOKEN });
  assert.equal(proxy.config.wsInitTimeoutMs, 5_000);
  assert.equal(proxy.config.wsMaxSockets, 256);
  assert.equal(proxy.config.wsPreAuthSockets, 32);
  const env = { SVC_TOKEN: SANDBOX_TOKEN, WS_MAX_SOCKETS: '7', WS_PRE_AUTH_SOCKETS: '3' };
  const set = createSvcProxy({ loopbackOnly: true, wsInitTimeoutMs: 750 }, env);
  assert.deepEqual(
    [set.config.wsInitTimeoutMs, set.config.wsMaxSockets, set.config.wsPreAuthSockets],
    [750, 7, 3],
  );
});
