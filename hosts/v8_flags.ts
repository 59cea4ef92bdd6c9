/**
 * The V8 setting the gateway's own server processes run with (docs/operations.md "V8's
 * allocation-site pretenuring"): V8's allocation-site pretenuring off.
 *
 * Pretenuring makes V8 allocate straight into the old generation at the allocation sites whose
 * objects it saw survive. A gateway's objects fall into two lives at the same sites (the runtime's
 * Buffer and stream code, `ws`'s receiver, the relay's frame path): a burst of sockets opening
 * makes them long-lived for a while, then every relayed frame makes them garbage at once. Once a
 * burst has marked those sites, each frame's garbage lands in the old generation, and full
 * collections run where scavenges did: measured on the Deno host at 16 sockets x 8 streams of
 * 1 KiB frames after 1000 idle sockets had opened and closed, 0.47-0.61 CPU s per 100k frames
 * against 0.40-0.44 with pretenuring off; the Node host 0.50-0.58 against 0.38-0.49.
 *
 * Set by the processes the gateway owns, never by the library entries (the Vite plugin and the
 * serverless function run in a process that is not the gateway's): the `svc-gateway` bin and its
 * workers set it at start ({@link applyServerV8Flags}: Node takes V8 flags at run time); on Deno,
 * where a flag set at run time did not take (measured: the same CPU as without it), it is on the
 * command line: `deno task serve` (DENO_V8_FLAGS), `deno task compile` (`--v8-flags`, kept in the
 * binary) and `deno task serve:parallel` (parallel_run.ts).
 */
import v8 from 'node:v8';

/** The V8 flags a server process of the gateway sets for itself. */
export const SERVER_V8_FLAGS: readonly string[] = ['--no-allocation-site-pretenuring'];

/**
 * Sets {@link SERVER_V8_FLAGS} in this Node process through `node:v8`, before the server takes
 * traffic. A runtime that refuses a flag keeps its default; nothing is thrown.
 */
export function applyServerV8Flags(): void {
  for (const flag of SERVER_V8_FLAGS) {
    try {
      v8.setFlagsFromString(flag);
    } catch {
      // the runtime keeps its default: a slower relay after bursts, nothing else
    }
  }
}
