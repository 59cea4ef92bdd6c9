/**
 * What replacing the master token costs, in process (docs/benchmarks.md "The master token's
 * replacement"; src/http/token_redaction.ts): per GraphQL answer (the bench's fixed answer, without
 * the token and echoing it), and the rate a streamed upload answer passes at in 64 KiB chunks, to
 * set against a request's own CPU in the `targets` scenario. Run:
 * `deno run --allow-all scripts/bench/redaction_cost.ts [rounds]`.
 */
import { redactText, TokenRedactor } from '../../src/http/token_redaction.ts';
import { fixedAnswer } from './fixed_upstream.ts';

const TOKEN = 'tok/EN+4f9c2a71d3b8e605==';
const ANSWER = new TextDecoder().decode(fixedAnswer());
const ECHOED = ANSWER.replace('"Bench bot"', `"Token rejected: Bearer ${TOKEN}"`);

/** ns per call of `fn` over `calls` calls. */
function nsPerCall(calls: number, fn: () => unknown): number {
  let sink = 0;
  const start = performance.now();
  for (let i = 0; i < calls; i++) sink += (fn() as { length: number }).length;
  const ns = (performance.now() - start) * 1e6 / calls;
  if (sink < 0) console.log(sink);
  return ns;
}

/** MiB/s of `chunks` through a redactor. */
function mibPerS(chunks: Uint8Array[], passes: number): number {
  let bytes = 0;
  const start = performance.now();
  for (let p = 0; p < passes; p++) {
    const redactor = new TokenRedactor(TOKEN);
    for (const chunk of chunks) bytes += redactor.push(chunk).byteLength;
    bytes += redactor.end().byteLength;
  }
  return bytes / 1048576 / ((performance.now() - start) / 1000);
}

/** 1 MiB of JSON-ish bytes in 64 KiB chunks, with `tokens` echoes of the token spread through. */
function streamChunks(tokens: number): Uint8Array[] {
  const filler = '{"id":"6512a0c4e1b2c3d4e5f60718","url":"https://cdn.example/x.png"},';
  let text = filler.repeat(Math.ceil(1048576 / filler.length)).slice(0, 1048576);
  for (let i = 1; i <= tokens; i++) {
    const at = Math.floor(i * text.length / (tokens + 1));
    text = text.slice(0, at) + `Bearer ${TOKEN}` + text.slice(at);
  }
  const bytes = new TextEncoder().encode(text);
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.byteLength; at += 65536) chunks.push(bytes.slice(at, at + 65536));
  return chunks;
}

if (import.meta.main) {
  const rounds = Number(Deno.args[0] ?? 5);
  const calls = 2_000_000;
  const clean = streamChunks(0);
  const echoing = streamChunks(64);
  for (let round = 1; round <= rounds; round++) {
    const answer = nsPerCall(calls, () => redactText(ANSWER, TOKEN));
    const echoed = nsPerCall(calls / 10, () => redactText(ECHOED, TOKEN));
    const cleanStream = mibPerS(clean, 100);
    const echoStream = mibPerS(echoing, 100);
    console.log(
      `round ${round}: answer of ${ANSWER.length} B: ${answer.toFixed(0)} ns (no token), ` +
        `${echoed.toFixed(0)} ns (token echoed); 1 MiB stream in 64 KiB chunks: ` +
        `${cleanStream.toFixed(0)} MiB/s (no token), ${echoStream.toFixed(0)} MiB/s (64 tokens)`,
    );
  }
}
