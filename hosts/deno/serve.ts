/**
 * `deno task serve`: environment (process over ./.env), HOST and PORT,
 * the startup lines, then the address. A refused configuration prints its
 * REFUSING TO SERVE line and never binds (exit code 1).
 */
import { createSvcProxy } from '../../src/host_api.ts';
import { bindAddress, isLoopbackBind, loadEnv } from '../env.ts';
import { serveDeno } from './server.ts';
import { denoOutbound } from './outbound.ts';

const env = loadEnv(Deno.env.toObject());
const { host, port } = bindAddress(env);
const proxy = createSvcProxy({ loopbackOnly: isLoopbackBind(host), ...denoOutbound() }, env);
for (const line of proxy.startupLines) console.log(line);
if (proxy.config.refusal) Deno.exit(1);
const running = await serveDeno(proxy, host, port);
console.log(`svc-gateway listening on ${running.url}`);
