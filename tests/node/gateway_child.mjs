// The Node host under test: the emitted npm package (npm/), started with the
// options and environment the test passes in SVC_TEST_CONFIG (JSON), on a free
// loopback port. Prints one line `LISTENING <url>` once it accepts connections.
// The package is imported by computed URL: it exists only after `deno task build:npm`, and
// `deno task check` must pass on a fresh clone without it.
import process from 'node:process';

const built = (path) => import(new URL(`../../npm/esm/${path}`, import.meta.url).href);
const { createSvcProxy } = await built('mod.js');
const { createNodeServer } = await built('hosts/node_http/server.js');
const { nodeOutbound } = await built('hosts/node_http/outbound.js');

const { options, env } = JSON.parse(process.env.SVC_TEST_CONFIG ?? '{}');
const proxy = createSvcProxy({ ...options, ...nodeOutbound() }, env);
for (const line of proxy.startupLines) console.log(line);
const server = createNodeServer(proxy);
server.listen(0, '127.0.0.1', () => {
  console.log(`LISTENING http://127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections?.();
  server.close(() => process.exit(0));
});
