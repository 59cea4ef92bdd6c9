/**
 * The documents `request` takes (src/client/document.ts): a string, a TypedDocumentString, a
 * DocumentNode with its source (sent verbatim), and a DocumentNode without `loc` (graphql-codegen's
 * client preset, an AST built or transformed in code), printed by graphql-js. The last is also
 * sent through the real gateway on both hosts to the sandbox upstream, which answers it.
 */
import assert from 'node:assert/strict';
import { type DocumentNode, Kind, parse, print, visit } from 'graphql';
import { createSvcClient, type SvcTypedDocumentNode } from '../../src/client/mod.ts';
import { documentText } from '../../src/client/document.ts';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { forwarded } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';

const TEXT = `# the bot and its title
query Bot($botID: BotID!) { bot(id: $botID) { id title } }`;

/** What graphql-codegen's client preset emits: the AST as plain JSON, no `loc`. */
function codegenShape<R, V>(text: string): SvcTypedDocumentNode<R, V> {
  return JSON.parse(JSON.stringify(parse(text, { noLocation: true })));
}

Deno.test('documentText: strings as they are, a kept source verbatim', () => {
  assert.equal(documentText(TEXT), TEXT);
  assert.equal(documentText(new String(TEXT)), TEXT);
  assert.equal(documentText(parse(TEXT) as SvcTypedDocumentNode), TEXT, 'comment kept');
});

Deno.test('documentText: a DocumentNode without loc is printed', () => {
  const node = codegenShape(TEXT);
  assert.equal('loc' in node, false);
  const text = documentText(node);
  assert.equal(text, print(parse(TEXT)));
  assert.deepEqual(parse(text, { noLocation: true }), parse(TEXT, { noLocation: true }));
  // an AST transformed in code: a field added to the bot selection
  const transformed = visit(parse(TEXT), {
    Field(field) {
      if (field.name.value !== 'bot' || !field.selectionSet) return undefined;
      const extra = { kind: Kind.FIELD, name: { kind: Kind.NAME, value: 'createdAt' } };
      return {
        ...field,
        selectionSet: {
          ...field.selectionSet,
          selections: [...field.selectionSet.selections, extra],
        },
      };
    },
  }) as DocumentNode;
  const { loc: _loc, ...withoutLoc } = transformed;
  assert.match(documentText(withoutLoc as SvcTypedDocumentNode), /title\s+createdAt/);
});

Deno.test('documentText: anything else is a TypeError', () => {
  for (const value of [null, 42, {}, { kind: 'Document' }, { kind: 'Field', definitions: [] }]) {
    assert.throws(() => documentText(value as never), TypeError);
  }
});

for (const kind of HOSTS) {
  Deno.test(`[${kind}] a codegen DocumentNode goes through the gateway`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const client = createSvcClient({ url: `${gateway.url}/svc/graphql` });
      const doc = codegenShape<{ bot: { id: string; title: string } }, { botID: string }>(TEXT);
      const data = await client.request(doc, { botID: WORLD_IDS.bot1 });
      assert.equal(data.bot.id, WORLD_IDS.bot1);
      assert.equal(typeof data.bot.title, 'string');
      const sent = forwarded(sandbox).at(-1)!;
      assert.equal(sent.search, '?op=Bot');
      assert.deepEqual(sent.operations[0].rootFields, ['bot']);
      assert.equal(sent.operations[0].query, print(parse(TEXT)));
    });
  });
}
