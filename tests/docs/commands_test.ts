/**
 * The shell commands of the user-facing documents (```sh blocks of README.md and docs/*.md).
 * Every line must be a command this test knows, and each is checked against what exists: a
 * `deno task` names a task of deno.json; a `deno run` a file; the package name and bin are the
 * ones scripts/build_npm.ts emits, installed from the tarball `npm pack` writes in npm/ (the package
 * is not on the registry: `npm install svc-gateway` is refused), the bin's and its `sandbox`
 * subcommand's flags their own; a curl URL a route of the gateway; the benchmark's flags its own;
 * an assignment a variable of .env.example, and a written-out SVC_TOKEN the sandbox's test token
 * with the sandbox's default URL. The ones that can run here do: the migrations
 * loop of docs/backend.md (psql against a real PostgreSQL), its bucket SQL, the metrics lines of
 * docs/operations.md (a Deno host started exactly as written), and the client size measurement
 * of docs/client.md, whose figure must still hold.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { DEFAULTS } from '../../src/config/defaults.ts';
import { PUBLISH_KEY_HEADER } from '../../src/routes/publishing/publish_key.ts';
import { SANDBOX_TOKEN } from '../../scripts/sandbox/mod.ts';
import { SANDBOX_PORT } from '../../scripts/sandbox/program.ts';
import { migrationFiles, startPostgres } from '../fixtures/db/postgres.ts';
import {
  blocksOf,
  exampleVariables,
  exists,
  packageEntries,
  ROOT,
  taskNames,
  userDocs,
} from './docs.ts';

/** One command line of a sh block (comment and trailing `&` removed). */
interface Line {
  where: string;
  text: string;
}

const SHELL = new Set(['sh', 'bash', 'shell']);

function shellLines(): Line[] {
  const lines: Line[] = [];
  for (const doc of userDocs()) {
    for (const block of blocksOf(doc).filter((b) => SHELL.has(b.lang))) {
      block.text.split('\n').forEach((raw, i) => {
        const text = raw.replace(/\s+#\s.*$/, '').replace(/\s*&\s*$/, '').trim();
        if (text !== '') lines.push({ where: `${doc.path}:${block.line + 1 + i}`, text });
      });
    }
  }
  return lines;
}

const tasks = taskNames();
const variables = exampleVariables();
const routePrefixes = Object.entries(DEFAULTS)
  .filter(([name, value]) => name.endsWith('Path') && typeof value === 'string')
  .map(([, value]) => value as string);
const benchFlags = new Set(
  [...readFileSync(join(ROOT, 'scripts/bench/main.ts'), 'utf8').matchAll(/^\s+(--[a-z]+)/gm)]
    .map((m) => m[1]),
);
const buildNpm = readFileSync(join(ROOT, 'scripts/build_npm.ts'), 'utf8');
const buildBinary = readFileSync(join(ROOT, 'scripts/build_binary.ts'), 'utf8');
/** The `--name` flags a module declares as parseArgs options (`  name: { type: '...' }` lines). */
function flagsOf(path: string): Set<string> {
  const text = readFileSync(join(ROOT, path), 'utf8');
  return new Set([...text.matchAll(/^\s+(\w+): \{ type: '/gm)].map((m) => `--${m[1]}`));
}
const binMain = readFileSync(join(ROOT, 'hosts/node/main.ts'), 'utf8');
const binFlags = flagsOf('hosts/node/main.ts');
const sandboxFlags = flagsOf('scripts/sandbox/program.ts');
const packageName = /name: '([\w-]+)'/.exec(buildNpm)![1];

/** The first `--flag` of `args` not in `known`, as a problem, or null. */
function unknownFlag(args: string, known: Set<string>, who: string): string | null {
  const unknown = [...args.matchAll(/--[a-z]+/g)].find((f) => !known.has(f[0]));
  return unknown ? `${who} has no flag ${unknown[0]}` : null;
}

/**
 * A written-out SVC_TOKEN (not a `<placeholder>`) must be the sandbox's test token, with
 * SVC_API_BASE the URL `svc-gateway sandbox` listens on by default: no other token is ever
 * written in a document.
 */
function writtenTokenProblem(assignments: string): string | null {
  const values = new Map(
    [...assignments.matchAll(/([A-Z][A-Z0-9_]*)=(\S+)/g)].map((a) => [a[1], a[2]]),
  );
  const token = values.get('SVC_TOKEN');
  if (token === undefined || token.startsWith('<')) return null;
  if (token !== SANDBOX_TOKEN) return "a written-out SVC_TOKEN that is not the sandbox's";
  const base = `http://127.0.0.1:${SANDBOX_PORT}`;
  return values.get('SVC_API_BASE') === base
    ? null
    : `the sandbox token without SVC_API_BASE=${base}`;
}

/** Checks one command (its leading assignments removed); the problem, or null. */
function problemOf(command: string): string | null {
  let m = /^(?:npx -y deno@[\d.]+ |deno )task ([\w:]+)(.*)$/.exec(command);
  if (m) {
    if (!tasks.has(m[1])) return `no task ${m[1]} in deno.json`;
    if (m[1] !== 'bench') return null;
    const unknown = [...m[2].matchAll(/--[a-z]+/g)].filter((f) => !benchFlags.has(f[0]));
    return unknown.length ? `the bench has no flag ${unknown[0][0]}` : null;
  }
  m = /^deno (?:run|test) (?:-\S+ )*(\S+\.ts)/.exec(command);
  if (m) return exists(m[1]) ? null : `no file ${m[1]}`;
  if (/^npm install svc-gateway(@|\s|$)/.test(command)) {
    return 'svc-gateway is not on the npm registry: install the tarball npm pack writes';
  }
  m = /^npm install \S*\/([\w-]+)-<version>\.tgz$/.exec(command);
  if (m) return m[1] === packageName ? null : `npm pack writes ${packageName}-<version>.tgz`;
  m = /^(.+) && \(cd npm && npm pack\)$/.exec(command);
  if (m) {
    // npm/ is where scripts/build_npm.ts swaps the built package in (its `final` folder)
    if (!buildNpm.includes("const final = join(root, 'npm');")) return 'build_npm writes no npm/';
    return problemOf(m[1]);
  }
  m = /^npx svc-gateway(?:\s+(sandbox)(?=\s|$))?(.*)$/.exec(command);
  if (m) {
    if (!/'svc-gateway': 'hosts\/node\/main.ts'/.test(buildNpm)) return 'no bin svc-gateway';
    if (m[1] === undefined) return unknownFlag(m[2], binFlags, 'the bin');
    if (!binMain.includes("command === 'sandbox'")) return 'the bin has no sandbox subcommand';
    return unknownFlag(m[2], sandboxFlags, 'svc-gateway sandbox');
  }
  m = /^(\S*svc-gateway-node)(\s.*)?$/.exec(command);
  if (m) {
    // the single executable: where scripts/build_binary.ts writes it, with the bin's own flags
    if (!buildBinary.includes(`'${m[1]}'`)) return `scripts/build_binary.ts writes no ${m[1]}`;
    return unknownFlag(m[2] ?? '', binFlags, 'the bin');
  }
  m = /^curl .*?(https?:\/\/[^\s'"]+)/.exec(command);
  if (m) {
    const path = new URL(m[1]).pathname;
    if (!routePrefixes.some((p) => path === p || path.startsWith(`${p}/`))) {
      return `curl to ${path}, not a route of the gateway`;
    }
    const header = /-H ["']x-svc-publish-key:/.exec(command);
    return header && PUBLISH_KEY_HEADER !== 'x-svc-publish-key' ? 'wrong publish header' : null;
  }
  if (/^for f in supabase\/migrations\/\*\.sql; do psql /.test(command)) return null;
  return 'a command this test does not know: teach tests/docs/commands_test.ts to check it';
}

Deno.test('every shell line of the documents names what exists', () => {
  const lines = shellLines();
  assert.ok(lines.length >= 10, `${lines.length} lines read`);
  const problems: string[] = [];
  for (const { where, text } of lines) {
    const assignments = /^((?:[A-Z][A-Z0-9_]*=(?:<[^>]*>|\S+)\s+)*)(.*)$/.exec(text)!;
    for (const a of assignments[1].matchAll(/([A-Z][A-Z0-9_]*)=/g)) {
      if (!variables.has(a[1])) problems.push(`${where}: ${a[1]} is not a variable`);
    }
    const problem = problemOf(assignments[2]) ?? writtenTokenProblem(assignments[1]);
    if (problem) problems.push(`${where}: ${problem}: ${text}`);
  }
  assert.deepEqual(problems, []);
});

Deno.test('the README starts with the two commands, on the Deno that runs them', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n');
  const first = blocksOf({ path: 'README.md', text: readme.slice(0, 8).join('\n') })[0];
  const commands = first.text.split('\n').map((l) => l.replace(/\s+#.*$/, ''));
  const version = Deno.version.deno;
  assert.deepEqual(commands, [
    `npx -y deno@${version} task demo`,
    `npx -y deno@${version} task test`,
  ]);
});

/** The one sh line of `doc` matching `pattern`. */
function lineOf(doc: string, pattern: RegExp): string {
  const found = shellLines().filter((l) => l.where.startsWith(`${doc}:`) && pattern.test(l.text));
  assert.equal(found.length, 1, `${doc}: one line matching ${pattern}`);
  return found[0].text;
}

const psql = new Deno.Command('psql', { args: ['--version'], stdout: 'null', stderr: 'null' })
  .output().then((o) => o.success, () => false);

Deno.test('docs/backend.md: the migrations loop and the bucket SQL run on PostgreSQL', async (t) => {
  const cluster = await startPostgres();
  try {
    const url = await cluster.createDatabase();
    const db = new pg.Client({ connectionString: url });
    db.on('error', () => {});
    await db.connect();
    try {
      // what a Supabase project has before the migrations (roles, auth, storage)
      await db.query(readFileSync((await migrationFiles())[0], 'utf8'));
      await t.step({
        name: 'the psql loop applies every migration',
        ignore: !await psql,
        fn: async () => {
          const loop = lineOf('docs/backend.md', /^for f in /);
          const run = await new Deno.Command('sh', {
            args: ['-c', loop],
            cwd: ROOT,
            env: { DATABASE_URL: url },
            stdout: 'piped',
            stderr: 'piped',
          }).output();
          assert.ok(run.success, new TextDecoder().decode(run.stderr));
          const bucket = await db.query(`select public from storage.buckets where id = $1`, [
            DEFAULTS.mediaBucket,
          ]);
          assert.deepEqual(bucket.rows, [{ public: true }]);
        },
      });
      await t.step('the bucket SQL for another name', async () => {
        const doc = userDocs().find((d) => d.path === 'docs/backend.md')!;
        const sql = blocksOf(doc).filter((b) =>
          b.lang === 'sql' && /storage\.buckets/.test(b.text)
        );
        assert.equal(sql.length, 1);
        await db.query(sql[0].text);
        await db.query(sql[0].text); // safe to run again
        const row = await db.query(
          `select public, file_size_limit::float8 as limit, allowed_mime_types as types
             from storage.buckets where id = 'app-media'`,
        );
        assert.deepEqual(row.rows, [{
          public: true,
          limit: DEFAULTS.mediaFileBytes,
          types: DEFAULTS.mediaTypes.map((type) => type.contentType),
        }]);
      });
    } finally {
      await db.end();
    }
  } finally {
    await cluster.stop();
  }
});

/** A port nothing listens on now (the kernel's pick, released). */
function freePort(): number {
  const listener = Deno.listen({ hostname: '127.0.0.1', port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * Reads `stream` until its text matches `pattern` (or it ends); the text read. The rest is
 * drained in the background, so the writer never meets a closed pipe.
 */
async function readUntil(stream: ReadableStream<Uint8Array>, pattern: RegExp): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!pattern.test(text)) {
    const { value, done } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
  }
  (async () => {
    while (!(await reader.read().catch(() => ({ done: true }))).done) { /* drained */ }
  })();
  return text;
}

Deno.test('docs/operations.md: the metrics lines run as written', async () => {
  const serve = lineOf('docs/operations.md', /deno task serve$/).replace(
    '<master token>',
    'docs-token',
  );
  const curl = lineOf('docs/operations.md', /^curl .*\/svc\/metrics$/);
  const port = freePort();
  const child = new Deno.Command('setsid', {
    args: ['sh', '-c', `exec env ${serve} 2>&1`],
    cwd: ROOT,
    env: { PORT: String(port), HOST: '127.0.0.1' },
    stdout: 'piped',
    stderr: 'null',
  }).spawn();
  try {
    const started = await readUntil(child.stdout, /listening on/);
    assert.match(started, new RegExp(`listening on http://127\\.0\\.0\\.1:${port}`), started);
    const run = await new Deno.Command('sh', {
      args: ['-c', curl.replace('127.0.0.1:8000', `127.0.0.1:${port}`)],
      stdout: 'piped',
      stderr: 'piped',
    }).output();
    const text = new TextDecoder().decode(run.stdout);
    assert.match(text, /^# TYPE svc_requests_total counter$/m, text);
    assert.ok(!`${started}${text}`.includes('docs-token'), 'the token never shows');
  } finally {
    try {
      Deno.kill(-child.pid, 'SIGTERM'); // the group setsid made: deno task and its child
    } catch { /* already gone */ }
    await child.status;
  }
});

Deno.test({
  name: 'docs/client.md: the size figures hold (within 10%)',
  ignore: !exists('npm/esm/src/client/mod.js'),
  async fn() {
    lineOf('docs/client.md', /^deno run -A examples\/client_size\.ts$/);
    const run = await new Deno.Command(Deno.execPath(), {
      args: ['run', '-A', 'examples/client_size.ts'],
      cwd: ROOT,
      stdout: 'piped',
      stderr: 'piped',
    }).output();
    assert.ok(run.success, new TextDecoder().decode(run.stderr));
    const measured = JSON.parse(new TextDecoder().decode(run.stdout));
    const doc = readFileSync(join(ROOT, 'docs/client.md'), 'utf8');
    const [, minified, gzip] = /\*\*([\d,]+)\*\* \(([\d,]+) gzipped\)/.exec(doc)!;
    const near = (documented: string, actual: number) =>
      Math.abs(Number(documented.replaceAll(',', '')) - actual) / actual < 0.1;
    assert.ok(near(minified, measured.minifiedBytes), `${minified} vs ${measured.minifiedBytes}`);
    assert.ok(near(gzip, measured.gzipBytes), `${gzip} vs ${measured.gzipBytes}`);
    assert.ok(packageEntries().has('svc-gateway/client'));
  },
});
