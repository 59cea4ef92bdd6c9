/**
 * The `route` label of the metrics: which route group a claimed path belongs to (never the path
 * itself, which can carry ids).
 */
import type { ResolvedConfig } from '../config/resolved.ts';

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** graphql, metrics, admin, auth, publishing or api. */
export function routeOf(config: ResolvedConfig, path: string): string {
  if (path === config.httpPath) return 'graphql';
  if (path === config.metricsPath) return 'metrics';
  if (under(path, config.adminPath)) return 'admin';
  if (under(path, config.authPath)) return 'auth';
  if (under(path, config.publishingPath)) return 'publishing';
  return 'api';
}
