// The Node host with a GraphQL forward that rejects (the `postText` host hook), for SPEC
// "Errors" ProxyHandlerFailed: "a route handler rejected; logged". Like gateway_child.mjs it
// runs the emitted npm package (npm/) with SVC_TEST_CONFIG's options and environment, on a free
// loopback port, and prints `LISTENING <url>`; the gateway's log lines go to stdout. The
// rejection's message carries the master token, which must reach neither the answer nor the log.
import process from 'node:process';

const built = (path) => import(new URL(`../../npm/esm/${path}`, import.meta.url).href);
const { createSvcProxy } = await built('mod.js');
const { createNodeServer } = await built('hosts/node_http/server.js');
const { nodeOutbound } = await built('hosts/node_http/outbound.js');

const { options, env } = JSON.parse(process.env.SVC_TEST_CONFIG ?? '{}');
const postText = () => Promise.reject(new Error(`forward failed for ${env.SVC_TOKEN}`));
const proxy = createSvcProxy({ ...options, ...nodeOutbound(), postText, log: console.log }, env);
for (const line of proxy.startupLines) console.log(line);
const server = createNodeServer(proxy);
server.listen(0, '127.0.0.1', () => {
  console.log(`LISTENING http://127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections?.();
  server.close(() => process.exit(0));
});
