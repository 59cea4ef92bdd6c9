import { createSvcProxy } from '../mod.ts';
import { bindAddress, isLoopbackBind } from '../hosts/env.ts';
import { denoOutbound } from '../hosts/deno/outbound.ts';
import { createNodeServer } from '../hosts/node/server.ts';
const env = Deno.env.toObject();
const { host, port } = bindAddress(env);
const proxy = createSvcProxy({ loopbackOnly: isLoopbackBind(host), ...denoOutbound() }, env);
for (const line of proxy.startupLines) console.log(line);
const server = createNodeServer(proxy);
server.listen(port, host, () => {
  const a = server.address() as { port: number };
  console.log(`svc-gateway listening on http://${host}:${a.port}`);
});
Deno.addSignalListener('SIGTERM', () => Deno.exit(0));
