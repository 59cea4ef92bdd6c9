/**
 * The `svc-gateway` bin: the Node server host. Environment: process
 * environment over ./.env; HOST (default 127.0.0.1), PORT (default 8000).
 * Prints the startup lines, then the address. A refused configuration
 * prints REFUSING TO SERVE and never binds (exit code 1). Outbound calls go
 * through undici's EnvHttpProxyAgent (HTTPS_PROXY, HTTP_PROXY, NO_PROXY).
 */
import process from 'node:process';
import { createSvcProxy } from '../../mod.ts';
import { bindAddress, isLoopbackBind, loadEnv } from '../env.ts';
import { proxyAwareFetch } from './outbound.ts';
import { createNodeServer } from './server.ts';

const env = loadEnv(process.env);
const { host, port } = bindAddress(env);
const proxy = createSvcProxy({ loopbackOnly: isLoopbackBind(host), fetch: proxyAwareFetch() }, env);
for (const line of proxy.startupLines) console.log(line);
if (proxy.config.refusal) process.exit(1);
const server = createNodeServer(proxy);
server.listen(port, host, () => {
  const address = server.address() as { port: number };
  const shown = host.includes(':') ? `[${host}]` : host;
  console.log(`svc-gateway listening on http://${shown}:${address.port}`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
