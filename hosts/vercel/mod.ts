/**
 * `svc-gateway/vercel`: the serverless function. The default export is an http.Server built at
 * import time from `process.env` alone, the form a function file re-exports:
 *
 *   // api/svc.js
 *   export { default } from 'svc-gateway/vercel';
 *
 * An app that passes options (e.g. `operations`) builds its own with createVercelServer.
 * SPEC "Startup behaviour and hosts" (Serverless host).
 */
import { createVercelServer } from './server.ts';

export { createVercelServer } from './server.ts';
export { PATH_PARAMETER, restorePath, REWRITTEN_PREFIX } from './cfpath.ts';

/** The function: an http.Server over `process.env`, read once per cold start. */
const server: import('node:http').Server = createVercelServer();
export default server;
