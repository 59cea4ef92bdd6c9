/**
 * The operation allowlist a deployment enforces (SPEC "Document checks in detail":
 * "Checks root field names ... against a generated list. Extra names may be added with
 * SVC_OPERATION_ALLOWLIST_EXTRA"; step 16).
 *
 * @module
 */

import { GENERATED_ALLOWLIST } from './allowlist.generated.ts';

export { GENERATED_ALLOWLIST };

/**
 * The allowed root field names, or null when the allowlist is off. `enabled` is the
 * resolved `operationAllowlist` option (the config decides the gate rules); `extra` are
 * the `operationAllowlistExtra` names (blank entries and surrounding spaces ignored).
 */
export function resolveAllowlist(options: {
  enabled: boolean;
  extra?: readonly string[];
}): ReadonlySet<string> | null {
  if (!options.enabled) return null;
  const set = new Set<string>(GENERATED_ALLOWLIST);
  for (const raw of options.extra ?? []) {
    const name = raw.trim();
    if (name !== '') set.add(name);
  }
  return set;
}
