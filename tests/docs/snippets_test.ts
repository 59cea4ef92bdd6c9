/**
 * The code lines of the user-facing documents: every ```js and ```ts block imports the package
 * (`svc-gateway`, `svc-gateway/node`, ...) or, in docs/clients.md, one of the other clients
 * (Apollo Client, urql, graphql-request, graphql-ws, at the versions deno.json pins), and is
 * type-checked by `deno check` against the package's own sources (the entries scripts/build_npm.ts
 * declares) and those pinned packages, the app's own functions it calls (render, show, ...)
 * declared as a prelude; the README's vercel.json is the one
 * hosts/README.md carries (which tests/hosts/vercel_package_test.ts deploys); every ```json block
 * parses.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { blocksOf, packageEntries, ROOT, userDocs } from './docs.ts';

/** The app's own functions the examples call. */
const PRELUDE = `
declare function render(value: unknown): void;
declare function show(message: string): void;
declare function showSignIn(reason: string): void;
declare function refetchEverything(): void;
declare function useLocalQueue(): void;
`;

/** vite is the app's own dependency, not this repository's: only its defineConfig is used. */
const VITE_STUB = 'export function defineConfig<T>(config: T): T {\n  return config;\n}\n';

const code = userDocs().flatMap((doc) =>
  blocksOf(doc).filter((b) => /^(js|ts|javascript|typescript)$/.test(b.lang))
);

/** An import of one of the other clients docs/clients.md covers (pinned in deno.json). */
const OTHER_CLIENT = /from '(@apollo\/client(\/[a-z/-]+)?|@urql\/core|graphql-request|graphql-ws)'/;

Deno.test('every js/ts block of the documents imports the package (or another client)', () => {
  assert.ok(code.length >= 5, `${code.length} blocks read`);
  const other = code.filter((b) =>
    !/from 'svc-gateway(\/[a-z]+)?'/.test(b.text) &&
    !(b.doc === 'docs/clients.md' && OTHER_CLIENT.test(b.text))
  );
  assert.deepEqual(other.map((b) => `${b.doc}:${b.line}`), []);
});

Deno.test('every js/ts block type-checks against the package sources', async () => {
  const dir = join(ROOT, 'tests/docs', `.snippets-${Deno.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    const entries = packageEntries();
    writeFileSync(join(dir, 'vite.ts'), VITE_STUB);
    const files = code.map((block, i) => {
      let text = block.text.replace(/from '(svc-gateway(?:\/[a-z]+)?)'/g, (_, specifier) => {
        const source = entries.get(specifier);
        assert.ok(source, `${block.doc}:${block.line}: no package entry ${specifier}`);
        return `from './${relative(dir, source)}'`;
      });
      text = text.replace(/from 'vite'/g, "from './vite.ts'");
      const file = join(dir, `block_${i}.ts`);
      writeFileSync(file, `${PRELUDE}\n${text}\nexport {};\n`);
      return { file, where: `${block.doc}:${block.line}` };
    });
    const run = await new Deno.Command(Deno.execPath(), {
      args: ['check', '--quiet', ...files.map((f) => f.file)],
      cwd: ROOT,
      stdout: 'piped',
      stderr: 'piped',
    }).output();
    let report = new TextDecoder().decode(run.stderr);
    for (const f of files) report = report.replaceAll(f.file, f.where);
    assert.ok(run.success, report);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("the README's vercel.json is the one hosts/README.md carries", () => {
  const readme = userDocs().find((d) => d.path === 'README.md')!;
  const json = blocksOf(readme).filter((b) => b.lang === 'json');
  assert.equal(json.length, 1);
  const hosts = readFileSync(join(ROOT, 'hosts/README.md'), 'utf8');
  const tested = /```json vercel\.json\n([\s\S]*?)```/.exec(hosts);
  assert.ok(tested, 'hosts/README.md has its vercel.json block');
  assert.deepEqual(JSON.parse(json[0].text), JSON.parse(tested[1]));
});

Deno.test('every json block parses', () => {
  for (const doc of userDocs()) {
    for (const block of blocksOf(doc).filter((b) => b.lang === 'json')) {
      assert.doesNotThrow(() => JSON.parse(block.text), `${doc.path}:${block.line}`);
    }
  }
});
