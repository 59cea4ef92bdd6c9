/**
 * The session gate on the socket, on both hosts (SPEC "Authentication" 3, "WebSocket close
 * codes", tenant rows of "Ceilings", "Events" 4): the init payload's authToken decides, the
 * close codes 4401 / 4403 / 1013 / 4500 / 4429, two users who must not reach each other's bots
 * or resources, and the socket ending at the session's exp.
 */
import assert from 'node:assert/strict';
import { type Client, createClient } from 'graphql-ws';
import { SANDBOX_TOKEN, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { assertNothingReached, postGraphql } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';
import { BOT_QUERY, FLOW_QUERY, GROUPS_QUERY, withGateOn } from './helpers.ts';

const BOOKINGS = 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }';

type InitOutcome = 'ack' | { code: number; reason: string };

/** A raw graphql-transport-ws socket: sends connection_init with `payload`. */
class RawSocket {
  readonly ws: WebSocket;
  readonly outcome: Promise<InitOutcome>;
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(url: string, payload: unknown) {
    this.ws = new WebSocket(`${url.replace('http', 'ws')}/svc/graphql`, 'graphql-transport-ws');
    let settle!: (o: InitOutcome) => void;
    this.outcome = new Promise((resolve) => settle = resolve);
    this.closed = new Promise((resolve) => {
      this.ws.onclose = (e) => {
        settle({ code: e.code, reason: e.reason });
        resolve({ code: e.code, reason: e.reason });
      };
    });
    this.ws.onopen = () => this.ws.send(JSON.stringify({ type: 'connection_init', payload }));
    this.ws.onmessage = (e) => {
      if (JSON.parse(String(e.data)).type === 'connection_ack') settle('ack');
    };
  }

  /** Closes from the browser side and waits for the close to complete. */
  async close(): Promise<void> {
    if (this.ws.readyState !== WebSocket.CLOSED) this.ws.close(1000);
    await this.closed;
  }
}

/** Opens, reads the init outcome, and closes. */
async function initOutcome(url: string, payload: unknown): Promise<InitOutcome> {
  const socket = new RawSocket(url, payload);
  const outcome = await socket.outcome;
  await socket.close();
  return outcome;
}

function client(url: string, jwt: string): Client {
  return createClient({
    url: `${url.replace('http', 'ws')}/svc/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authToken: `Bearer ${jwt}` },
    retryAttempts: 0,
    lazy: true,
  });
}

/** Runs one operation over the socket until it completes or errors. */
function run(c: Client, query: string, variables: Record<string, unknown>) {
  const events: unknown[] = [];
  return new Promise<{ events: unknown[]; code?: string; message?: string }>((resolve) => {
    c.subscribe({ query, variables }, {
      next: (value) => void events.push(value),
      error: (error) => {
        const first = (error as { message: string; extensions?: { code?: string } }[])[0];
        resolve({ events, code: first?.extensions?.code, message: first?.message });
      },
      complete: () => resolve({ events }),
    });
  });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] gate on, socket`, async (t) => {
    const cluster = await startPostgres();
    try {
      await t.step(
        'close codes at connection_init; the init payload is never relayed',
        async () => {
          await withGateOn(kind, cluster, {}, async ({ sandbox, backend, gateway, users }) => {
            const expired = await backend.rest.mintUserToken(users.a.id, { expSeconds: -5 });
            const refusals: Array<[unknown, number, string]> = [
              [{}, 4401, 'AuthSessionRequired'],
              [{ authToken: users.a.jwt }, 4401, 'AuthSessionRequired'],
              [{ authToken: `Bearer ${expired}` }, 4401, 'AuthSessionRequired'],
              [{ authToken: `Bearer ${users.c.jwt}` }, 4403, 'AuthTenantForbidden'],
            ];
            for (const [payload, code, reason] of refusals) {
              assert.deepEqual(await initOutcome(gateway.url, payload), { code, reason });
            }
            backend.rest.switches.fail500 = true;
            const fresh = await backend.rest.mintUserToken(users.b.id, { expSeconds: 900 });
            assert.deepEqual(
              await initOutcome(gateway.url, { authToken: `Bearer ${fresh}` }),
              { code: 1013, reason: 'ProxyAuthUnavailable' },
            );
            backend.rest.switches.fail500 = false;
            assert.equal(sandbox.sockets.length, 0, 'no refused socket reached the upstream');
            const c = client(gateway.url, users.a.jwt);
            try {
              const own = await run(c, BOOKINGS, { botID: WORLD_IDS.bot1 });
              assert.equal(own.code, undefined, own.message);
              assert.equal(own.events.length, 3);
            } finally {
              await c.dispose();
            }
            assert.deepEqual(sandbox.sockets[0].initPayload, {
              authToken: `Bearer ${SANDBOX_TOKEN}`,
            });
          });
        },
      );

      await t.step('two users reach neither the bots nor the resources of the other', async () => {
        await withGateOn(kind, cluster, {}, async ({ sandbox, gateway, users, bearer }) => {
          const learn = await postGraphql(
            gateway.url,
            { query: GROUPS_QUERY, variables: { botID: WORLD_IDS.bot1 } },
            bearer(users.a.jwt),
          );
          const groups = (await learn.json()).data.bot.flowGroups.map((g: { id: string }) => g.id);
          const a = client(gateway.url, users.a.jwt);
          const b = client(gateway.url, users.b.jwt);
          try {
            const foreignBot = await run(b, BOOKINGS, { botID: WORLD_IDS.bot1 });
            assert.equal(foreignBot.code, 'BotNotAllowed');
            assert.equal(foreignBot.message, `Bot ${WORLD_IDS.bot1} belongs to another workspace`);
            const foreignFlow = await run(b, FLOW_QUERY, {
              botID: WORLD_IDS.bot3,
              flowID: groups[0],
            });
            assert.equal(foreignFlow.code, 'ResourceNotAllowed');
            const otherWay = await run(a, BOT_QUERY, { botID: WORLD_IDS.bot3 });
            assert.equal(otherWay.code, 'BotNotAllowed');
            const own = await run(a, FLOW_QUERY, { botID: WORLD_IDS.bot1, flowID: groups[0] });
            assert.equal(own.code, undefined, own.message);
            const relayed = sandbox.sockets.flatMap((s) => s.subscribes);
            assert.equal(relayed.length, 1, 'only the own flow reached the upstream');
            assert.deepEqual(relayed[0].payload.variables, {
              botID: WORLD_IDS.bot1,
              flowID: groups[0],
            });
          } finally {
            await a.dispose();
            await b.dispose();
          }
        });
      });

      await t.step('TENANT_MAX_SOCKETS per tenant (4429), freed when a socket ends', async () => {
        const env = { TENANT_MAX_SOCKETS: '2' };
        await withGateOn(kind, cluster, { env }, async ({ backend, gateway, users, sandbox }) => {
          // A fresh sign-in of user A is the same tenant (same bot set).
          const again = await backend.rest.mintUserToken(users.a.id, { expSeconds: 1800 });
          const first = new RawSocket(gateway.url, { authToken: `Bearer ${users.a.jwt}` });
          const second = new RawSocket(gateway.url, { authToken: `Bearer ${again}` });
          try {
            assert.equal(await first.outcome, 'ack');
            assert.equal(await second.outcome, 'ack');
            // the refused socket opens no upstream socket and sends nothing upstream
            const refused = await assertNothingReached(
              sandbox,
              () => initOutcome(gateway.url, { authToken: `Bearer ${users.a.jwt}` }),
            );
            assert.deepEqual(refused, {
              code: 4429,
              reason: 'Too many open sockets for this account',
            });
            assert.equal(
              await initOutcome(gateway.url, { authToken: `Bearer ${users.b.jwt}` }),
              'ack',
              'another tenant is not affected',
            );
            await first.close();
            assert.equal(
              await initOutcome(gateway.url, { authToken: `Bearer ${again}` }),
              'ack',
              'the slot came back',
            );
          } finally {
            await first.close();
            await second.close();
          }
        });
      });

      await t.step("a socket ends at the session's exp (1012)", async () => {
        await withGateOn(kind, cluster, {}, async ({ backend, gateway, users }) => {
          const short = await backend.rest.mintUserToken(users.a.id, { expSeconds: 2 });
          const socket = new RawSocket(gateway.url, { authToken: `Bearer ${short}` });
          try {
            assert.equal(await socket.outcome, 'ack');
            assert.deepEqual(await socket.closed, {
              code: 1012,
              reason: 'reconnect to be re-authorised',
            });
          } finally {
            await socket.close();
          }
        });
      });
    } finally {
      await cluster.stop();
    }
  });

  Deno.test(`[${kind}] gate misconfigured: the socket closes 4500`, async () => {
    await withGateway(
      kind,
      { env: { CLIENT_BACKEND_ANON_KEY: 'only-one' } },
      async ({ sandbox, gateway }) => {
        assert.deepEqual(await initOutcome(gateway.url, { authToken: 'Bearer x' }), {
          code: 4500,
          reason: 'ProxyAuthMisconfigured',
        });
        assert.equal(sandbox.sockets.length, 0);
      },
    );
  });
}
