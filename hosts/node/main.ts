/**
 * The `svc-gateway` bin: the Node server host (createSvcServer).
 *
 *   svc-gateway [--dist DIR]
 *
 * Environment: process environment over ./.env; HOST (default 127.0.0.1), PORT (default 8000),
 * BASE_PATH (mounts everything under a sub-path). Static files from DIR, default ./dist when it
 * exists, else none. Prints the startup lines, then the address. A refused configuration prints
 * REFUSING TO SERVE and never binds (exit code 1). SIGTERM and SIGINT close gracefully (in-flight
 * requests finish, relay sockets close 1001), then exit 0. Outbound calls go through undici's
 * EnvHttpProxyAgent (HTTPS_PROXY, HTTP_PROXY, NO_PROXY). SPEC "Startup behaviour and hosts".
 */
import process from 'node:process';
import { parseArgs } from 'node:util';
import { createSvcServer } from './svc_server.ts';

function distArgument(): string | undefined {
  try {
    const { values } = parseArgs({ options: { dist: { type: 'string' } }, strict: true });
    return values.dist;
  } catch (error) {
    console.error(`svc-gateway: ${(error as Error).message}\nusage: svc-gateway [--dist DIR]`);
    process.exit(2);
  }
}

const svc = (() => {
  try {
    return createSvcServer({ distDir: distArgument() });
  } catch (error) {
    console.error(`svc-gateway: ${(error as Error).message}`);
    process.exit(1);
  }
})();
if (svc.proxy.config.refusal) process.exit(1);
const { url } = await svc.listen().catch((error: Error) => {
  console.error(`svc-gateway: ${error.message}`);
  process.exit(1);
});
if (svc.distDir) console.log(`svc-gateway: static files from ${svc.distDir}`);
console.log(`svc-gateway listening on ${url}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void svc.close().then(() => process.exit(0)));
}
