/**
 * /svc/publishing over real HTTP on both hosts: mounting, GET /config, POST /register, and the
 * posts routes with their refusals (SPEC "Publish queue" and its "Errors" rows). Every refusal
 * also proves that nothing reached the upstream.
 */
import assert from 'node:assert/strict';
import { DEFAULTS } from '../../src/config/defaults.ts';
import { assertNothingReached, assertRefusal } from '../helpers/assertions.ts';
import { type Gateway, type HostKind, HOSTS } from '../helpers/gateway.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { unlock } from '../admin/helpers.ts';
import {
  BOT,
  gatewayOf,
  OTHER_BOT,
  pub,
  PUBLIC_URL,
  SECRET,
  startWorld,
  type World,
} from './helpers.ts';

const IMG = { type: 'image', url: 'https://cdn.example.test/a.jpg' };

/** What every step talks to: one host's gateway on the world, and a call that keeps its answers. */
interface Routes {
  kind: HostKind;
  world: World;
  gw: Gateway;
  /** Every answer's text and headers, for the last step's search for secrets. */
  seen: string[];
  call: (path: string, init?: Parameters<typeof pub>[2]) => Promise<Response>;
}

async function notMounted({ kind, world }: Routes) {
  for (
    const overrides of [
      { BACKEND_SERVICE_ROLE_KEY: undefined },
      { CLIENT_BACKEND_URL: undefined, CLIENT_BACKEND_ANON_KEY: undefined },
    ]
  ) {
    const bare = await gatewayOf(kind, world, overrides);
    try {
      const res = await pub(bare.url, '/config', { bearer: world.owner });
      await res.body?.cancel();
      assert.equal(res.status, 404);
    } finally {
      await bare.stop();
    }
  }
}

async function unknownPathsAndMethods({ world, call }: Routes) {
  await assertRefusal(await call('/nope'), 404, 'NotFound');
  const res = await call('/posts?botID=' + BOT, { method: 'PUT', bearer: world.owner });
  assert.equal(res.status, 405);
  assert.equal(res.headers.get('allow'), 'GET, POST');
  assert.equal(await res.text(), '');
}

async function configBehindGate({ world, call }: Routes) {
  await assertNothingReached(world.sandbox, async () => {
    await assertRefusal(await call('/config'), 401, 'AuthSessionRequired');
  });
  const res = await call('/config', { bearer: world.owner });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.scheduling, false);
  assert.deepEqual(body.missing, ['register']);
  assert.equal(body.media.contentTypes.length, 5);
}

async function register({ world, gw, call }: Routes) {
  await assertRefusal(
    await call('/register', { method: 'POST' }),
    401,
    'AdminSessionRequired',
  );
  await assertRefusal(
    await call('/register', { method: 'POST', bearer: world.owner }),
    401,
    'AdminSessionRequired',
  );
  const cookie = await unlock(gw.url);
  const res = await call('/register', {
    method: 'POST',
    headers: { cookie, 'x-svc-admin': '1' },
  });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.deepEqual(body, {
    registered: true,
    callbackUrl: `${PUBLIC_URL}/svc/publishing/publish-due`,
    bypass: false,
    scheduled: false,
    mediaBucket: { name: 'svc-pub-media', state: 'ready' },
  });
  const settings = await world.backend.seed.query(
    'select callback_url, publish_secret from public.svc_publishing_settings',
  );
  assert.equal(settings.rows.length, 1);
  assert.equal(settings.rows[0].publish_secret, SECRET, 'what the scheduler must send');
  const config = await (await call('/config', { bearer: world.owner })).json();
  assert.equal(config.scheduling, true);
  assert.deepEqual(config.missing, []);
}

async function registerMisconfigured({ kind, world }: Routes) {
  for (
    const [overrides, status, code] of [
      [{ PUBLIC_URL: undefined }, 409, 'ProxyPublicUrlMissing'],
      [{ PUBLISHING_SECRET: undefined }, 500, 'ProxySocialMisconfigured'],
      [{ PUBLISHING_SECRET: 'two words' }, 500, 'ProxySocialMisconfigured'],
      [
        { PUBLISHING_SECRET: 'x'.repeat(DEFAULTS.publishingSecretMaxChars + 1) },
        500,
        'ProxySocialMisconfigured',
      ],
    ] as const
  ) {
    const other = await gatewayOf(kind, world, overrides);
    try {
      const cookie = await unlock(other.url);
      const res = await pub(other.url, '/register', {
        method: 'POST',
        headers: { cookie, 'x-svc-admin': '1' },
      });
      await assertRefusal(res, status, code);
      if (overrides.PUBLISHING_SECRET === undefined && 'PUBLISHING_SECRET' in overrides) {
        const config = await (await pub(other.url, '/config', { bearer: world.owner }))
          .json();
        assert.equal(config.scheduling, false);
        assert.ok(config.missing.includes('PUBLISHING_SECRET'));
      }
    } finally {
      await other.stop();
    }
  }
}

async function postsBotId({ world, call }: Routes) {
  await assertNothingReached(world.sandbox, async () => {
    await assertRefusal(await call('/posts', { bearer: world.owner }), 400, 'InvalidRequest');
    await assertRefusal(
      await call(`/posts?botID=${BOT}&botid=${BOT}`, { bearer: world.owner }),
      400,
      'InvalidRequest',
    );
    await assertRefusal(
      await call('/posts?botID=a.b', { bearer: world.owner }),
      422,
      'BadBotId',
    );
    await assertRefusal(await call(`/posts?botID=${BOT}`), 401, 'AuthSessionRequired');
    await assertRefusal(
      await call(`/posts?botID=${BOT}`, { bearer: world.stranger }),
      403,
      'BotNotAllowed',
    );
    await assertRefusal(
      await call(`/posts?botID=${OTHER_BOT}`, { bearer: world.owner }),
      403,
      'BotNotAllowed',
    );
    await assertRefusal(
      await call(`/posts?botID=${BOT}`, { bearer: world.botless }),
      403,
      'AuthTenantForbidden',
    );
  });
}

/** Posts CRUD in sub-steps sharing the post the first makes, all with nothing upstream. */
async function postsCrud({ world, call }: Routes, t: Deno.TestContext) {
  await assertNothingReached(world.sandbox, async () => {
    const q = `?botID=${BOT}`;
    let post!: Record<string, string>;
    await t.step(
      "create a scheduled post; list is the caller's own; unscheduling makes a draft",
      async () => {
        const created = await call(`/posts${q}`, {
          method: 'POST',
          bearer: world.owner,
          body: {
            kind: 'post',
            media: [IMG],
            caption: 'hi',
            scheduledAt: '2030-01-01T10:00:00Z',
          },
        });
        assert.equal(created.status, 201);
        post = await created.json();
        assert.equal(post.status, 'scheduled');
        assert.equal(post.botId, BOT);
        assert.equal(post.scheduledAt, '2030-01-01T10:00:00.000Z');
        const list = await (await call(`/posts${q}`, { bearer: world.owner })).json();
        assert.deepEqual(list.map((p: { id: string }) => p.id), [post.id]);
        const strangerList = await call(`/posts?botID=${OTHER_BOT}`, { bearer: world.stranger });
        assert.deepEqual(await strangerList.json(), []);
        const edited = await call(`/posts/${post.id}${q}`, {
          method: 'PATCH',
          bearer: world.owner,
          body: { scheduledAt: null },
        });
        assert.equal((await edited.json()).status, 'draft');
      },
    );
    await t.step('bodies that are not one JSON object: 400 InvalidRequest', async () => {
      await assertRefusal(
        await call(`/posts${q}`, { method: 'POST', bearer: world.owner, body: '[1,2]' }),
        400,
        'InvalidRequest',
      );
      await assertRefusal(
        await call(`/posts${q}`, { method: 'POST', bearer: world.owner, body: '{"kind":' }),
        400,
        'InvalidRequest',
      );
    });
    await t.step('posts the SQL refuses: 422 BadPost and CaptionTooLong', async () => {
      for (
        const bad of [
          { kind: 'tweet', media: [IMG] },
          { kind: 'post', media: [{ type: 'image', url: 'http://cdn.example.test/a.jpg' }] },
          { kind: 'carousel', media: [IMG] },
          { kind: 'post', media: [IMG], scheduledAt: 'soonish' },
          { kind: 'post', media: [IMG], status: 'publishing' },
          { kind: 'post', media: [IMG], permalink: 'https://x.test' },
        ]
      ) {
        await assertRefusal(
          await call(`/posts${q}`, { method: 'POST', bearer: world.owner, body: bad }),
          422,
          'BadPost',
        );
      }
      await assertRefusal(
        await call(`/posts${q}`, {
          method: 'POST',
          bearer: world.owner,
          body: { kind: 'post', media: [IMG], caption: 'x'.repeat(2201) },
        }),
        422,
        'CaptionTooLong',
      );
    });
    await t.step('unknown or foreign post ids: 404 PostNotFound', async () => {
      await assertRefusal(
        await call(`/posts/not-a-uuid${q}`, { method: 'PATCH', bearer: world.owner, body: {} }),
        404,
        'PostNotFound',
      );
      await assertRefusal(
        await call(`/posts/${crypto.randomUUID()}${q}`, {
          method: 'DELETE',
          bearer: world.owner,
        }),
        404,
        'PostNotFound',
      );
      // the stranger cannot reach the owner's post through its own bot
      await assertRefusal(
        await call(`/posts/${post.id}?botID=${OTHER_BOT}`, {
          method: 'DELETE',
          bearer: world.stranger,
        }),
        404,
        'PostNotFound',
      );
    });
    await t.step('a body over 2 MiB: 413 RequestTooLarge; delete answers the id', async () => {
      const big = await call(`/posts${q}`, {
        method: 'POST',
        bearer: world.owner,
        body: JSON.stringify({ kind: 'post', caption: 'x'.repeat(2 * 1024 * 1024 + 1) }),
      });
      await assertRefusal(big, 413, 'RequestTooLarge');
      const gone = await call(`/posts/${post.id}${q}`, {
        method: 'DELETE',
        bearer: world.owner,
      });
      assert.deepEqual(await gone.json(), { id: post.id });
    });
  });
}

function noSecret({ world, gw, seen }: Routes) {
  const all = [...seen, ...gw.lines].join('\n');
  assert.ok(!all.includes(SECRET));
  assert.ok(!all.includes(world.env.SVC_TOKEN!));
  assert.ok(!all.includes(world.env.BACKEND_SERVICE_ROLE_KEY!));
}

/** The steps in order, on one gateway per host (a few start their own beside it). */
const STEPS: [string, (r: Routes, t: Deno.TestContext) => Promise<void> | void][] = [
  ['not mounted without a service-role key, nor with the gate off', notMounted],
  ['unknown path 404, other methods 405 with an allow header', unknownPathsAndMethods],
  ['GET /config is behind the gate and says what is missing', configBehindGate],
  ['POST /register: admin only; records the callback; config then says yes', register],
  [
    'register without PUBLIC_URL 409, without a usable PUBLISHING_SECRET 500',
    registerMisconfigured,
  ],
  ["posts: botID required, key-shaped, and the caller's own", postsBotId],
  ['posts: create, list, edit, delete; validation in SQL', postsCrud],
  ['the secret appears in no answer and no log line', noSecret],
];

for (const kind of HOSTS) {
  Deno.test(`publishing routes (${kind} host)`, async (t) => {
    const cluster = await startPostgres();
    const world = await startWorld(cluster);
    const gw = await gatewayOf(kind, world);
    const seen: string[] = [];
    const read = async (res: Response) => {
      const text = await res.clone().text();
      seen.push(text, JSON.stringify([...res.headers]));
      return res;
    };
    const call = async (path: string, init: Parameters<typeof pub>[2] = {}) =>
      await read(await pub(gw.url, path, init));
    const routes: Routes = { kind, world, gw, seen, call };
    try {
      for (const [name, step] of STEPS) await t.step(name, (t) => step(routes, t));
    } finally {
      await gw.stop();
      await world.stop();
      await cluster.stop();
    }
  });
}
