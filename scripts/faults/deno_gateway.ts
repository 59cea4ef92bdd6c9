/**
 * The Deno host as the fault suite runs it: `hosts/deno/serve.ts` plus options the environment
 * cannot carry (timeoutMs and slowTimeoutMs have no variable), read as JSON from
 * SVC_FAULT_OPTIONS. Prints the startup lines, then `svc-gateway listening on <url>`.
 */
import { createSvcProxy, type SvcProxyOptions } from '../../mod.ts';
import { bindAddress, isLoopbackBind, loadEnv } from '../../hosts/env.ts';
import { serveDeno } from '../../hosts/deno/server.ts';
import { denoOutbound } from '../../hosts/deno/outbound.ts';

const env = loadEnv(Deno.env.toObject());
const options: SvcProxyOptions = JSON.parse(env.SVC_FAULT_OPTIONS ?? '{}');
const { host, port } = bindAddress(env);
const proxy = createSvcProxy(
  { loopbackOnly: isLoopbackBind(host), ...denoOutbound(), ...options },
  env,
);
for (const line of proxy.startupLines) console.log(line);
if (proxy.config.refusal) Deno.exit(1);
const running = await serveDeno(proxy, host, port);
console.log(`svc-gateway listening on ${running.url}`);
Deno.addSignalListener('SIGTERM', () => void running.shutdown().then(() => Deno.exit(0)));
