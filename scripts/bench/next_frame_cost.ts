/**
 * What the next-frame pass (src/ws/next_frame.ts) saves against the object path it stands beside
 * (`parseUpstreamFrame`, `rebuildResult`, `JSON.stringify`: what the relay does for every other
 * frame), in process, on the relay's frame shapes: the flood upstream's small and 1 KiB frames
 * (already written as the relay writes them: they leave as their own text) and the same frames
 * with their members in another order (the envelope is written anew). The token scrub and the
 * rest of a frame's way are the same on both paths and left out. docs/benchmarks.md "Speed-only
 * pieces". Run: `deno run --allow-all scripts/bench/next_frame_cost.ts [rounds]` (Deno's V8; the
 * end-to-end figures of both hosts come from `deno task bench --only pieces`).
 */
import { scanNext } from '../../src/ws/next_frame.ts';
import {
  type JsonObject,
  parseUpstreamFrame,
  rebuildResult,
  serialiseNext,
} from '../../src/ws/frames.ts';

const ID = '3f0c2a9e-8d4b-4c71-a1e6-5b9d7c2e4f18';
const PAD = 'x'.repeat(960);
const SHAPES: Record<string, string> = {
  'small, own text':
    `{"id":"${ID}","type":"next","payload":{"data":{"bookingAdded":{"id":"4711"}}}}`,
  '1 KiB, own text':
    `{"id":"${ID}","type":"next","payload":{"data":{"bookingAdded":{"id":"4711","pad":"${PAD}"}}}}`,
  'small, reordered':
    `{"type":"next","id":"${ID}","payload":{"data":{"bookingAdded":{"id":"4711"}}}}`,
  '1 KiB, reordered':
    `{"type":"next","id":"${ID}","payload":{"data":{"bookingAdded":{"id":"4711","pad":"${PAD}"}}}}`,
};

/** The pass, and the envelope written when the frame's own text cannot leave. */
function fast(text: string): string {
  const next = scanNext(text)!;
  return next.frame ?? serialiseNext(next.id, next.payload, next.idJson);
}

/** The object path: parse, rebuild the result, stringify it, write the envelope. */
function plain(text: string): string {
  const parsed = parseUpstreamFrame(text);
  if (!parsed.ok || parsed.message.type !== 'next') throw new Error('not a next frame');
  const { id, payload } = parsed.message;
  return serialiseNext(id, JSON.stringify(rebuildResult(payload as JsonObject)));
}

/** ns per call of `fn(text)` over `calls` calls. */
function nsPerCall(calls: number, text: string, fn: (text: string) => string): number {
  let sink = 0;
  const start = performance.now();
  for (let i = 0; i < calls; i++) sink += fn(text).length;
  const ns = (performance.now() - start) * 1e6 / calls;
  if (sink < 0) console.log(sink);
  return ns;
}

if (import.meta.main) {
  const rounds = Number(Deno.args[0] ?? 5);
  for (const text of Object.values(SHAPES)) {
    if (fast(text) !== plain(text)) throw new Error(`the two paths differ on ${text.slice(0, 40)}`);
    nsPerCall(200_000, text, fast); // warm-up
    nsPerCall(200_000, text, plain);
  }
  for (let round = 1; round <= rounds; round++) {
    const cells = Object.entries(SHAPES).map(([name, text]) => {
      const f = nsPerCall(500_000, text, fast);
      const p = nsPerCall(500_000, text, plain);
      return `${name}: pass ${f.toFixed(0)} ns, object path ${p.toFixed(0)} ns`;
    });
    console.log(`round ${round}: ${cells.join('; ')}`);
  }
}
