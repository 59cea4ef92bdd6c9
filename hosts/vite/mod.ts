/**
 * `svc-gateway/vite`: the dev server host.
 *
 *   // vite.config.js
 *   import svcGateway from 'svc-gateway/vite';
 *   export default { plugins: [svcGateway()] };
 *
 * SPEC "Startup behaviour and hosts" (Dev server host).
 */
import { svcGateway } from './plugin.ts';

export {
  joinAllowedHosts,
  svcGateway,
  type SvcVitePlugin,
  viteBindsLoopback,
  type ViteConfigLike,
  type ViteServerLike,
} from './plugin.ts';
export default svcGateway;
