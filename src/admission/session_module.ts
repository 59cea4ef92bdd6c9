/**
 * Picks the gate and the shared store for a configuration: SPEC "Configuration states" (the
 * gate rows) and "Resource fence" (the store is on wherever a non-off fence has a service-role
 * key, off with SVC_RESOURCE_STORE=off).
 */
import { createBackendRpc } from '../backend/rpc.ts';
import type { ResolvedConfig } from '../config/resolved.ts';
import { createGateOff, type Gate } from './gate.ts';
import { createGateOn, type GateLookup } from './gate_on.ts';
import type { ResourceFence } from './resource_fence.ts';
import { createResourceStore, type ResourceStore } from './resource_store.ts';

/** Gate on (both backend variables, or option auth an object): the session gate; else gate off. */
export function createGate(
  config: ResolvedConfig,
  fetchImpl: typeof fetch,
  observe?: (result: GateLookup) => void,
): Gate {
  const { state, url, anonKey } = config.auth;
  if (state !== 'on' || url === undefined || anonKey === undefined) return createGateOff(config);
  return createGateOn(config, { rpc: createBackendRpc(url, anonKey, fetchImpl), observe });
}

/** The shared store over `fence`, or null when the configuration has none (or no backend URL). */
export function createStore(
  config: ResolvedConfig,
  fence: ResourceFence,
  fetchImpl: typeof fetch,
): ResourceStore | null {
  const { url, serviceRoleKey } = config.auth;
  if (!config.resourceStore || url === undefined || serviceRoleKey === undefined) return null;
  return createResourceStore({ rpc: createBackendRpc(url, serviceRoleKey, fetchImpl), fence });
}
