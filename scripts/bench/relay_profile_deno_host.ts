/**
 * The Deno host for `relay_profile.ts`: hosts/deno/serve.ts, ended on SIGTERM with an exit the
 * runtime finishes (so `--cpu-prof` writes its profile; a plain SIGTERM would kill it first).
 */
import '../../hosts/deno/serve.ts';

Deno.addSignalListener('SIGTERM', () => Deno.exit(0));
