// The Node host as the fault suite runs it: the emitted npm package's createSvcServer (no static
// files) plus options the environment cannot carry (timeoutMs and slowTimeoutMs have no
// variable), read as JSON from SVC_FAULT_OPTIONS. Prints the startup lines, then
// `svc-gateway listening on <url>`. Imported by computed URL: npm/ exists only after
// `deno task build:npm`.
import process from 'node:process';

const built = (path) => import(new URL(`../../npm/esm/${path}`, import.meta.url).href);
const { createSvcServer } = await built('hosts/node/svc_server.js');

const options = JSON.parse(process.env.SVC_FAULT_OPTIONS ?? '{}');
const svc = createSvcServer({ distDir: false, env: process.env, options });
if (svc.proxy.config.refusal) process.exit(1);
const { url } = await svc.listen();
console.log(`svc-gateway listening on ${url}`);
process.once('SIGTERM', () => void svc.close().then(() => process.exit(0)));
