/**
 * The exact rules of the checks before any route and of steps 1 and 18 that a plausible edit
 * would loosen while every other test passes, on both hosts (SPEC "Checks before any route" 1,
 * 2 and 6; "Order in which a GraphQL body is checked" 1 and 18):
 *
 * - the Host must equal an allowed name: a name that only ends with one is refused, and an entry
 *   with a port answers that port only;
 * - a loopback name is one exactly: `127.0.0.1.<anything>` is a name like any other;
 * - the host check is asked first: a request failing both checks is ProxyHostForbidden, and it
 *   applies under the admin prefix too;
 * - `sec-fetch-site: same-site` is no pass (only same-origin and none are);
 * - the own-origin comparison includes the port;
 * - step 1 reads the media type itself, not a parameter or a longer type that holds its name;
 * - step 18 runs for a request that names a resource and no bot;
 * - gate off, an empty bot fence refuses BotNotAllowed (AuthTenantForbidden is the gate's, step 19).
 *
 * One gateway per host for the checks (one more for the empty fence); every refusal reaches
 * nothing upstream.
 */
import assert from 'node:assert/strict';
import {
  assertNothingReached,
  assertRefusal,
  postGraphql,
  rawRequest,
} from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';

const Q = JSON.stringify({ query: '{ currentUser { id } }' });
const ALLOWED = 'gw.example.com';
/** An allowed entry with a port: it answers that port only. */
const WITH_PORT = 'port.example.com:8443';
const LISTED = 'https://app.example.com';
const ENV = {
  ALLOWED_HOSTS: `${ALLOWED},${WITH_PORT}`,
  ALLOWED_ORIGINS: LISTED,
  ADMIN_PASSWORD: 'operator-password-0123456789',
};

/** A raw POST of Q with `host` and extra header lines. */
function post(host: string, lines: string[] = []): string {
  return [
    'POST /svc/graphql HTTP/1.1',
    `host: ${host}`,
    'content-type: application/json',
    `content-length: ${Q.length}`,
    ...lines,
  ].join('\r\n');
}

/** The code of a raw answer's envelope. */
function codeOf(body: string): string | undefined {
  return JSON.parse(body).errors?.[0]?.extensions?.code;
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] exact rules of the host, origin, media type and fence checks`, async (t) => {
    await withGateway(kind, { env: ENV }, async ({ sandbox, gateway }) => {
      const url = gateway.url;
      const own = new URL(url);

      await t.step('the allowed name and a loopback name pass (the baseline)', async () => {
        for (
          const host of [ALLOWED, `${ALLOWED}:8443`, WITH_PORT, '127.0.0.1.localhost', own.host]
        ) {
          const res = await rawRequest(url, post(host), Q);
          assert.equal(res.status, 200, `${host}: ${res.body}`);
        }
      });

      await t.step(
        'a Host that only ends with the allowed name is 403 ProxyHostForbidden',
        async () => {
          await assertNothingReached(sandbox, async () => {
            for (const host of [`evil${ALLOWED}`, `evil.${ALLOWED}`, `evil-${ALLOWED}:443`]) {
              const res = await rawRequest(url, post(host), Q);
              assert.equal(res.status, 403, `${host}: ${res.body}`);
              assert.equal(codeOf(res.body), 'ProxyHostForbidden', host);
              assert.equal(res.headers['access-control-allow-origin'], undefined);
            }
          });
        },
      );

      await t.step('an entry with a port answers that port only', async () => {
        await assertNothingReached(sandbox, async () => {
          for (const host of ['port.example.com:9999', 'port.example.com', 'port.example.com:80']) {
            const res = await rawRequest(url, post(host), Q);
            assert.equal(res.status, 403, `${host}: ${res.body}`);
            assert.equal(codeOf(res.body), 'ProxyHostForbidden', host);
          }
        });
      });

      await t.step(
        '127.0.0.1.<anything> is not a loopback name: 403 ProxyHostForbidden',
        async () => {
          await assertNothingReached(sandbox, async () => {
            for (const host of ['127.0.0.1.evil.example', `127.0.0.1.nip.io:${own.port}`]) {
              const res = await rawRequest(url, post(host), Q);
              assert.equal(res.status, 403, `${host}: ${res.body}`);
              assert.equal(codeOf(res.body), 'ProxyHostForbidden', host);
            }
          });
        },
      );

      await t.step(
        'the host check is asked first: failing both is ProxyHostForbidden',
        async () => {
          await assertNothingReached(sandbox, async () => {
            const both = await rawRequest(
              url,
              post('evil.example', [
                'origin: https://attacker.example',
                'sec-fetch-site: cross-site',
              ]),
              Q,
            );
            assert.equal(both.status, 403, both.body);
            assert.equal(codeOf(both.body), 'ProxyHostForbidden');
            // the origin check alone refuses the same foreign origin on an answered Host
            const originOnly = await rawRequest(
              url,
              post(own.host, ['origin: https://attacker.example', 'sec-fetch-site: cross-site']),
              Q,
            );
            assert.equal(originOnly.status, 403, originOnly.body);
            assert.equal(codeOf(originOnly.body), 'ProxyOriginForbidden');
          });
        },
      );

      await t.step('the host check applies under the admin prefix', async () => {
        await assertNothingReached(sandbox, async () => {
          for (const path of ['/svc/admin/session', '/svc/admin/overview']) {
            const res = await rawRequest(
              url,
              `GET ${path} HTTP/1.1\r\nhost: evil.example\r\nx-svc-admin: 1`,
            );
            assert.equal(res.status, 403, `${path}: ${res.body}`);
            assert.equal(codeOf(res.body), 'ProxyHostForbidden', path);
          }
          // the answered Host reaches the panel (no cookie: 401), so the 403 was the host's
          const panel = await rawRequest(
            url,
            `GET /svc/admin/session HTTP/1.1\r\nhost: ${ALLOWED}\r\nx-svc-admin: 1`,
          );
          assert.equal(codeOf(panel.body), 'AdminSessionRequired', panel.body);
        });
      });

      await t.step('sec-fetch-site: same-site does not pass the origin check', async () => {
        await assertNothingReached(sandbox, async () => {
          const withOrigin = await postGraphql(url, Q, {
            origin: 'https://evil.example',
            'sec-fetch-site': 'same-site',
          });
          await assertRefusal(withOrigin, 403, 'ProxyOriginForbidden');
          const metadataOnly = await postGraphql(url, Q, { 'sec-fetch-site': 'same-site' });
          await assertRefusal(metadataOnly, 403, 'ProxyOriginForbidden');
        });
      });

      await t.step(
        'the own origin includes the port: the same host on another port is refused',
        async () => {
          const other = Number(own.port) === 65535 ? 65534 : Number(own.port) + 1;
          await assertNothingReached(sandbox, async () => {
            for (
              const origin of [
                `http://${own.hostname}:${other}`,
                `https://${own.hostname}:${other}`,
                `http://${own.hostname}`,
              ]
            ) {
              await assertRefusal(
                await postGraphql(url, Q, { origin }),
                403,
                'ProxyOriginForbidden',
              );
            }
          });
          const same = await postGraphql(url, Q, { origin: `http://${own.host}` });
          assert.equal(same.status, 200, 'the own host and port pass');
          await same.body?.cancel();
        },
      );

      await t.step('step 1 reads the media type itself: 415 UnsupportedMediaType', async () => {
        await assertNothingReached(sandbox, async () => {
          for (
            const type of [
              // needs no CORS preflight: a cross-site form could post it
              'text/plain; x=application/json',
              'text/plain;application/json',
              'multipart/form-data; boundary=application/json',
              'application/jsonx',
              'application/json-seq',
              'x-application/json',
            ]
          ) {
            const res = await postGraphql(url, Q, { 'content-type': type });
            await assertRefusal(res, 415, 'UnsupportedMediaType');
          }
        });
        const res = await postGraphql(url, Q, {
          'content-type': 'Application/JSON; charset=utf-8',
        });
        assert.equal(res.status, 200, 'the type with a parameter passes');
        await res.body?.cancel();
      });

      await t.step(
        'gate off, a resource and no bot named: the fence is still asked (503)',
        async () => {
          sandbox.switches.status = { status: 500, match: { operationName: 'SvcWorkspaceBots' } };
          try {
            await assertNothingReached(sandbox, async () => {
              for (
                const query of [
                  `{ file(id: "${'a'.repeat(24)}") { id } }`,
                  `{ getTask(id: "${'b'.repeat(24)}") { id } }`,
                ]
              ) {
                await assertRefusal(
                  await postGraphql(url, { query }),
                  503,
                  'ProxyFenceUnavailable',
                );
              }
            });
            const plain = await postGraphql(url, Q);
            assert.equal(plain.status, 200, 'naming neither needs no fence');
            await plain.body?.cancel();
          } finally {
            sandbox.switches.status = null;
          }
        },
      );
    });
  });

  Deno.test(`[${kind}] gate off, an empty frozen bot fence: 403 BotNotAllowed, not the gate's code`, async () => {
    await withGateway(kind, { options: { allowedBotIds: [] } }, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        const query = `{ bot(id: "${'a'.repeat(24)}") { id } }`;
        const message = await assertRefusal(
          await postGraphql(gateway.url, { query }),
          403,
          'BotNotAllowed',
        );
        assert.equal(message, `Bot ${'a'.repeat(24)} is not one this deployment may use`);
      });
    });
  });
}
