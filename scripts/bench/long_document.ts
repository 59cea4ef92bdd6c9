/**
 * The long document of the 'longdoc' scenario (docs/benchmarks.md "Refusing a long document"):
 * a POST body just under the GraphQL body limit (2 MiB) holding one document of plain fields,
 * hundreds of thousands of tokens, far past graphqlMaxTokens; and the baseline it is read
 * against: graphql-js parsing that document whole in the same runtime (parse_whole.mjs, run on
 * Node and on Deno in a process of its own).
 */
import { ROOT, serveTaskEnv } from '../host_process.ts';
import type { HostKind } from '../host_process.ts';

/** The GraphQL POST body limit (SPEC step 6: "body under 2 MiB"). */
const BODY_LIMIT = 2 * 1024 * 1024;

/** `{ f0 f1 ... f9999 f0 ... }`, its POST body at most `bodyBytes` (default: 1 KiB under 2 MiB). */
export function longDocument(bodyBytes = BODY_LIMIT - 1024): { query: string; body: string } {
  const names: string[] = [];
  let length = '{"query":"{ }"}'.length;
  for (let i = 0;; i++) {
    const name = `f${i % 10_000}`;
    if (length + name.length + 1 > bodyBytes) break;
    names.push(name);
    length += name.length + 1;
  }
  const query = `{ ${names.join(' ')} }`;
  return { query, body: JSON.stringify({ query }) };
}

/** What one baseline run measured. */
export interface WholeParse {
  /** CPU ms (user + system) per parse of the whole document. */
  cpuMsPerParse: number;
  /** Tokens graphql-js read. */
  tokens: number;
}

/**
 * Parses `query` whole `parses` times in a fresh process of `kind` (Node, or Deno with the
 * settings `deno task serve` runs the host with) and returns the CPU per parse.
 */
export async function parseWhole(kind: HostKind, query: string, parses = 10): Promise<WholeParse> {
  const file = await Deno.makeTempFile({ prefix: 'svc-longdoc-', suffix: '.graphql' });
  try {
    await Deno.writeTextFile(file, query);
    const script = `${ROOT}scripts/bench/parse_whole.mjs`;
    const args = kind === 'node' ? [script, file, String(parses)] : [
      'run',
      '--quiet',
      `--config=${ROOT}deno.json`,
      '--allow-read',
      '--allow-env',
      script,
      file,
      String(parses),
    ];
    const out = await new Deno.Command(kind === 'node' ? 'node' : Deno.execPath(), {
      args,
      cwd: ROOT,
      env: kind === 'deno' ? serveTaskEnv() : {},
      stdout: 'piped',
      stderr: 'piped',
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim();
    if (!out.success) {
      throw new Error(`parse_whole.mjs on ${kind}: ${new TextDecoder().decode(out.stderr)}`);
    }
    return JSON.parse(text) as WholeParse;
  } finally {
    await Deno.remove(file).catch(() => {});
  }
}
