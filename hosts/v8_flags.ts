/**
 * The V8 setting the gateway's own server processes run with (docs/operations.md "V8's
 * allocation-site pretenuring"): V8's allocation-site pretenuring off.
 *
 * Pretenuring makes V8 allocate straight into the old generation at the allocation sites whose
 * objects it saw survive. A gateway's objects fall into two lives at the same sites (the runtime's
 * Buffer and stream code, `ws`'s receiver, the relay's frame path): a burst of sockets opening
 * makes them long-lived for a while, then every relayed frame makes them garbage at once. Once a
 * burst has marked those sites, each frame's garbage lands in the old generation, and full
 * collections run where scavenges did (the figures: docs/operations.md "V8's allocation-site
 * pretenuring").
 *
 * Set by the processes the gateway owns, never by the library entries (the Vite plugin and the
 * serverless function run in a process that is not the gateway's): the `svc-gateway` bin and its
 * workers set it at start ({@link applyServerV8Flags}: Node takes V8 flags at run time); on Deno,
 * where a flag set at run time does not take, it is on the
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
