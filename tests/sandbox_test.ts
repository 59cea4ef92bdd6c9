/**
 * The sandbox upstream over HTTP: world, determinism, authorization, the service's own
 * operations, every app document, uploads, and the HTTP switches.
 * (Socket behaviour: tests/sandbox_ws_test.ts.)
 */
import assert from 'node:assert/strict';
import {
  appOperations,
  type Sandbox,
  SANDBOX_TOKEN,
  startSandbox,
  subgraphFailure,
  subgraphSentence,
  WORLD_IDS,
} from '../scripts/sandbox/mod.ts';

const HEX24 = /^[0-9a-f]{24}$/;

interface Answer {
  status: number;
  json: Record<string, unknown> & { data?: Record<string, unknown>; errors?: unknown[] };
}

async function gql(
  sb: Sandbox,
  body: unknown,
  options: { token?: string | null; search?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const token = options.token === undefined ? SANDBOX_TOKEN : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${sb.url}/graphql${options.search ?? ''}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

async function withSandbox(run: (sb: Sandbox) => Promise<void>) {
  const sb = await startSandbox();
  try {
    await run(sb);
  } finally {
    await sb.close();
  }
}

const FENCE = 'query SvcWorkspaceBots { currentUser { id workspaces { id bots { id } } } }';
const BOT_RESOURCES =
  'query R($botID: BotID!) { bot(id: $botID) { id flowGroups { id flows { id } } ' +
  'flowsWithoutGroup { id } contact(id: "0123456789abcdef01234567") { id } } }';

Deno.test('sandbox: the fence query answers the world and the request is recorded', async () => {
  await withSandbox(async (sb) => {
    const { status, json } = await gql(sb, { query: FENCE }, { search: '?op=SvcWorkspaceBots' });
    assert.equal(status, 200);
    assert.deepEqual(json.data, {
      currentUser: {
        id: WORLD_IDS.user,
        workspaces: [
          { id: WORLD_IDS.workspaceA, bots: [{ id: WORLD_IDS.bot1 }, { id: WORLD_IDS.bot2 }] },
          { id: WORLD_IDS.workspaceB, bots: [{ id: WORLD_IDS.bot3 }] },
        ],
      },
    });
    for (const id of Object.values(WORLD_IDS)) assert.match(id, HEX24);
    assert.equal(sb.received.length, 1);
    const [req] = sb.received;
    assert.equal(req.method, 'POST');
    assert.equal(req.path, '/graphql');
    assert.equal(req.search, '?op=SvcWorkspaceBots');
    assert.equal(req.headers.authorization, `Bearer ${SANDBOX_TOKEN}`);
    assert.equal(req.headers['content-type'], 'application/json');
    assert.equal(req.bodyText, JSON.stringify({ query: FENCE }));
    assert.equal(req.bodyBytes, new TextEncoder().encode(req.bodyText ?? '').byteLength);
    assert.equal(req.operations[0].operationName, 'SvcWorkspaceBots');
    assert.deepEqual(req.operations[0].rootFields, ['currentUser']);
    assert.deepEqual(req.answer, { status: 200 });
  });
});

Deno.test('sandbox: resource ids are deterministic, per bot, and match world.resourceId', async () => {
  const first = await startSandbox();
  const second = await startSandbox();
  try {
    const a1 = await gql(first, { query: BOT_RESOURCES, variables: { botID: WORLD_IDS.bot1 } });
    const a2 = await gql(second, { query: BOT_RESOURCES, variables: { botID: WORLD_IDS.bot1 } });
    const b = await gql(first, { query: BOT_RESOURCES, variables: { botID: WORLD_IDS.bot2 } });
    assert.deepEqual(a1.json, a2.json);
    const ids = (answer: Answer) =>
      [...JSON.stringify(answer.json).matchAll(/"([0-9a-f]{24})"/g)].map((m) => m[1])
        .filter((id) => id !== WORLD_IDS.bot1 && id !== WORLD_IDS.bot2 && !id.startsWith('0123'));
    const idsA = ids(a1);
    assert.ok(idsA.length >= 8, `expected resource ids, got ${idsA.length}`);
    for (const id of ids(b)) assert.ok(!idsA.includes(id), `id ${id} shared by two bots`);
    const bot = a1.json.data?.bot as {
      flowGroups: { id: string; flows: { id: string }[] }[];
      flowsWithoutGroup: { id: string }[];
      contact: { id: string };
    };
    assert.equal(bot.flowGroups[0].id, first.world.resourceId(WORLD_IDS.bot1, 'flowGroups.0.id'));
    assert.equal(
      bot.flowGroups[1].flows[0].id,
      first.world.resourceId(WORLD_IDS.bot1, 'flowGroups[1].flows[0].id'),
    );
    assert.equal(bot.contact.id, '0123456789abcdef01234567', 'an id argument is echoed');
  } finally {
    await first.close();
    await second.close();
  }
});

Deno.test('sandbox: a wrong or missing token is answered 200 Unauthorized', async () => {
  await withSandbox(async (sb) => {
    const unauthorized = {
      errors: [{ message: 'Unauthorized', extensions: { code: 'Unauthorized' } }],
    };
    for (const token of ['wrong-token', null]) {
      const { status, json } = await gql(sb, { query: FENCE }, { token });
      assert.equal(status, 200);
      assert.deepEqual(json, unauthorized);
    }
    assert.equal(sb.received.length, 2);
    assert.equal(sb.received[1].headers.authorization, undefined);
    const other = await startSandbox({ token: 'another-token-abcdefghij' });
    try {
      assert.deepEqual((await gql(other, { query: FENCE })).json, unauthorized);
      const ok = await gql(other, { query: FENCE }, { token: 'another-token-abcdefghij' });
      assert.equal((ok.json.data?.currentUser as { id: string }).id, WORLD_IDS.user);
    } finally {
      await other.close();
    }
  });
});

Deno.test('sandbox: the service bot mutations change the world and refuse with upstream codes', async () => {
  await withSandbox(async (sb) => {
    const create = 'mutation SvcProvisionBot($workspaceID: WorkspaceID!, $title: String!) ' +
      '{ workspaceCreateBot(workspaceID: $workspaceID, initialTitle: $title) { id } }';
    const rename = 'mutation SvcRenameBot($botID: BotID!, $title: String!) ' +
      '{ renameBot(botID: $botID, newTitle: $title) { id } }';
    const del = 'mutation SvcDeleteBot($botID: BotID!) { deleteBot(botID: $botID) { id } }';
    const made = await gql(sb, {
      query: create,
      variables: { workspaceID: WORLD_IDS.workspaceA, title: 'New' },
    });
    const id = (made.json.data?.workspaceCreateBot as { id: string }).id;
    assert.match(id, HEX24);
    assert.equal(sb.world.bot(id)?.title, 'New');
    const full = await gql(sb, {
      query: create,
      variables: { workspaceID: WORLD_IDS.workspaceA, title: 'x' },
    });
    assert.equal(
      (full.json.errors?.[0] as { extensions: { code: string } }).extensions.code,
      'TooManyBotsInWorkspace',
    );
    const noWs = await gql(sb, {
      query: create,
      variables: { workspaceID: 'f'.repeat(24), title: 'x' },
    });
    assert.equal(
      (noWs.json.errors?.[0] as { extensions: { code: string } }).extensions.code,
      'WorkspaceDoesNotExist',
    );
    await gql(sb, { query: rename, variables: { botID: id, title: 'Renamed' } });
    assert.equal(sb.world.bot(id)?.title, 'Renamed');
    const gone = await gql(sb, { query: del, variables: { botID: id } });
    assert.equal((gone.json.data?.deleteBot as { id: string }).id, WORLD_IDS.user);
    assert.equal(sb.world.bot(id), undefined);
    const again = await gql(sb, { query: del, variables: { botID: id } });
    assert.equal(
      (again.json.errors?.[0] as { extensions: { code: string } }).extensions.code,
      'BotDoesNotExist',
    );
    sb.reset();
    assert.deepEqual(sb.world.botIds(), [WORLD_IDS.bot1, WORLD_IDS.bot2, WORLD_IDS.bot3]);
    assert.equal(sb.received.length, 0);
  });
});

Deno.test('sandbox: the admin queries answer; the billing query fails validation with 400', async () => {
  await withSandbox(async (sb) => {
    const ws = await gql(sb, {
      query: 'query SvcAdminWorkspace($workspaceID: WorkspaceID!) { currentUser { id ' +
        'workspace(id: $workspaceID) { id title botsLimit bots { id title } } } }',
      variables: { workspaceID: WORLD_IDS.workspaceB },
    });
    assert.deepEqual((ws.json.data?.currentUser as { workspace: unknown }).workspace, {
      id: WORLD_IDS.workspaceB,
      title: 'Workspace B',
      botsLimit: 2,
      bots: [{ id: WORLD_IDS.bot3, title: 'Bot 3' }],
    });
    const billing = await gql(sb, {
      query: 'query SvcAdminWorkspaceBilling($workspaceID: WorkspaceID!) { currentUser { id ' +
        'workspace(id: $workspaceID) { id subscription { id status isOnTrialPeriod } } } }',
      variables: { workspaceID: WORLD_IDS.workspaceB },
    });
    assert.equal(billing.status, 400);
    assert.equal(
      (billing.json.errors?.[0] as { extensions: { code: string } }).extensions.code,
      'GRAPHQL_VALIDATION_FAILED',
    );
    const unknownBot = await gql(sb, {
      query: 'query { bot(id: "ffffffffffffffffffffffff") { id } }',
    });
    assert.equal(unknownBot.json.data, null);
    assert.equal(
      (unknownBot.json.errors?.[0] as { extensions: { code: string } }).extensions.code,
      'BotDoesNotExist',
    );
  });
});

Deno.test('sandbox: every app query and mutation executes without errors', async () => {
  await withSandbox(async (sb) => {
    const operations = appOperations().filter((op) => op.kind !== 'subscription');
    assert.ok(operations.length > 500);
    const failures: string[] = [];
    for (const op of operations) {
      sb.world.reset();
      const variables = op.variables(WORLD_IDS.bot2);
      const { status, json } = await gql(sb, {
        query: op.query,
        operationName: op.name,
        variables,
      });
      if (status !== 200 || json.errors || !json.data) failures.push(`${op.file} ${op.name}`);
    }
    assert.deepEqual(failures, []);
    assert.equal(sb.received.length, operations.length);
  });
});

Deno.test('sandbox: a batch is answered as an array', async () => {
  await withSandbox(async (sb) => {
    const { status, json } = await gql(sb, [{ query: FENCE }, {
      query: '{ currentUser { name } }',
    }]);
    assert.equal(status, 200);
    assert.ok(Array.isArray(json));
    assert.equal((json as unknown as unknown[]).length, 2);
    assert.deepEqual(sb.received[0].operations.map((o) => o.operationName), [
      'SvcWorkspaceBots',
      null,
    ]);
  });
});

async function upload(
  sb: Sandbox,
  kind: string,
  search: string,
  file: Blob | null,
  token = SANDBOX_TOKEN,
) {
  const form = new FormData();
  form.set('note', 'hello');
  if (file) form.set('file', file, 'photo.png');
  const res = await fetch(`${sb.url}/api/filestorage/upload/${kind}${search}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: res.status, json: await res.json() };
}

Deno.test('sandbox: uploads answer a file id and record what they received', async () => {
  await withSandbox(async (sb) => {
    const png = new Blob([new Uint8Array(1000).fill(7)], { type: 'image/png' });
    const search = `?fileType=Image&botID=${WORLD_IDS.bot1}`;
    const first = await upload(sb, 'bot', search, png);
    assert.equal(first.status, 200);
    assert.match(first.json.id, HEX24);
    const [req] = sb.received;
    assert.equal(req.path, '/api/filestorage/upload/bot');
    assert.equal(req.search, search);
    assert.equal(req.bodyText, null);
    assert.ok(req.bodyBytes > 1000);
    assert.match(req.headers['content-type'], /^multipart\/form-data; boundary=/);
    assert.equal(req.upload?.contentType, req.headers['content-type']);
    assert.ok(req.upload?.boundary && req.headers['content-type'].includes(req.upload.boundary));
    assert.deepEqual(req.upload?.file, { name: 'photo.png', bytes: 1000, type: 'image/png' });
    assert.deepEqual(req.upload?.fields, { note: 'hello' });
    assert.equal(req.upload?.fileId, first.json.id);
    const same = await upload(sb, 'bot', search, png);
    assert.equal(same.json.id, first.json.id, 'same bytes, same bot: same id');
    const other = await upload(sb, 'bot', `?botID=${WORLD_IDS.bot3}`, png);
    assert.notEqual(other.json.id, first.json.id);
    assert.equal((await upload(sb, 'useraccount', '', png)).status, 200);
    assert.equal((await upload(sb, 'livechat', '', png)).status, 400, 'botID required');
    assert.equal((await upload(sb, 'plugin', `?botID=${'f'.repeat(24)}`, png)).status, 403);
    assert.equal((await upload(sb, 'widget', search, null)).status, 400, 'file part required');
    assert.equal((await upload(sb, 'widget', search, png, 'wrong')).status, 401);
    assert.equal((await upload(sb, 'elsewhere', search, png)).status, 404);
  });
});

Deno.test('switch delays: a delayed operation answers after an undelayed one', async () => {
  await withSandbox(async (sb) => {
    sb.switches.delays.push({ ms: 300, match: { operationName: 'Slow' } });
    const order: string[] = [];
    const slow = gql(sb, { query: 'query Slow { currentUser { id } }' }).then(() =>
      order.push('slow')
    );
    await sb.waitFor(() => sb.received.length === 1, 'slow request recorded');
    await gql(sb, { query: 'query Fast { currentUser { id } }' }).then(() => order.push('fast'));
    await slow;
    assert.deepEqual(order, ['fast', 'slow']);
  });
});

Deno.test('switch errors: subgraph envelopes are answered as set, only for the matched field', async () => {
  await withSandbox(async (sb) => {
    const errors = subgraphFailure({ nestedCode: 'BotDoesNotExist' });
    sb.switches.errors = { errors, match: { rootField: 'bot' } };
    const hit = await gql(sb, { query: `{ bot(id: "${WORLD_IDS.bot1}") { id } }` });
    assert.equal(hit.status, 200);
    assert.deepEqual(hit.json, { data: null, errors });
    assert.equal(errors[0].message, subgraphSentence('bots'));
    assert.equal(errors[0].extensions?.code, undefined);
    assert.equal(errors[0].extensions?.errors?.[0].extensions?.code, 'BotDoesNotExist');
    const miss = await gql(sb, { query: FENCE });
    assert.equal(miss.json.errors, undefined);
    sb.switches.errors = { errors: subgraphFailure({ outerCode: 'Unauthorized' }) };
    const all = await gql(sb, { query: FENCE });
    assert.equal(
      (all.json.errors?.[0] as { extensions: { code: string } }).extensions.code,
      'Unauthorized',
    );
  });
});

Deno.test('switch status: answers the given status and body', async () => {
  await withSandbox(async (sb) => {
    sb.switches.status = {
      status: 502,
      body: '<html>bad gateway</html>',
      contentType: 'text/html',
    };
    const res = await fetch(`${sb.url}/graphql`, { method: 'POST', body: '{}' });
    assert.equal(res.status, 502);
    assert.equal(res.headers.get('content-type'), 'text/html');
    assert.equal(await res.text(), '<html>bad gateway</html>');
    assert.deepEqual(sb.received[0].answer, { status: 502 });
  });
});

Deno.test('switch drop: the connection closes without an answer', async () => {
  await withSandbox(async (sb) => {
    sb.switches.drop = { match: { path: '/graphql' } };
    await assert.rejects(gql(sb, { query: FENCE }));
    assert.equal(sb.received.length, 1);
    assert.equal(sb.received[0].answer, 'dropped');
    sb.reset();
    assert.equal(sb.switches.drop, null);
    assert.equal((await gql(sb, { query: FENCE })).status, 200);
  });
});
