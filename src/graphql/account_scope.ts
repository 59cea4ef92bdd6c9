/**
 * The static half of the account-scope check (SPEC step 14, gate on: "nothing under
 * currentUser (beyond id, botRole, __typename, and no fragment spread there) and nothing
 * reached through a bot reads the account"; facts `accountScope`).
 *
 * Without the schema, Bot selections are recognised by field name, which is stricter than
 * by type and never looser on `schema.graphql`: `invites` and `apiToken` are refused
 * wherever they appear (only Bot and Workspace have them), and any `workspace` selection
 * outside `currentUser` (only Bot.workspace has that name there) may hold only the
 * allowed workspace fields. A field named `currentUser` is checked at any depth.
 *
 * Two `currentUser` fields are allowed only when an argument names a bot or a resource;
 * that depends on the variables, so it is returned as conditions for
 * `evaluateAccountScope`.
 *
 * @module
 */

import { type FragmentDefinitionNode, Kind, type SelectionSetNode, type ValueNode } from 'graphql';
import { ACCOUNT_SCOPE } from './lists.ts';

/**
 * A `currentUser` field allowed only if `argument` names a bot (`need: 'bot'`: a non-null
 * value) or a resource (`need: 'resource'`: a 24-hex string).
 */
export interface ScopeCondition {
  field: string;
  argument: string;
  need: 'bot' | 'resource';
  value: ValueNode;
}

/**
 * `blocked` names the field that reads the account (e.g. `currentUser.email`,
 * `currentUser { ...Profile }`, `invites`, `workspace.members`); else null and the
 * conditions still to check against the variables.
 */
export type StaticAccountScope =
  | { blocked: string; conditions?: undefined }
  | { blocked: null; conditions: readonly ScopeCondition[] };

/** Where a selection sits: anywhere, under currentUser, under a Bot's workspace. */
const Scope = { Free: 0, CurrentUser: 1, Workspace: 2 } as const;
type Scope = (typeof Scope)[keyof typeof Scope];

/**
 * Walks an operation's selections (fragments followed once per scope) and returns the first
 * field that reads the account, or the conditions left for the request's variables.
 * Fragments must already be resolved (unknown ones are skipped).
 */
export function staticAccountScope(
  root: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): StaticAccountScope {
  const conditions: ScopeCondition[] = [];
  const seen = new Set<string>();
  const s = ACCOUNT_SCOPE;

  const walk = (set: SelectionSetNode, scope: Scope): string | null => {
    for (const sel of set.selections) {
      let blocked: string | null = null;
      if (sel.kind === Kind.INLINE_FRAGMENT) {
        blocked = walk(sel.selectionSet, scope);
      } else if (sel.kind === Kind.FRAGMENT_SPREAD) {
        const name = sel.name.value;
        if (scope === Scope.CurrentUser) return `${s.currentUserField} { ...${name} }`;
        const key = `${scope}:${name}`;
        const fragment = fragments.get(name);
        if (fragment && !seen.has(key)) {
          seen.add(key);
          blocked = walk(fragment.selectionSet, scope);
        }
      } else {
        const name = sel.name.value;
        const next = fieldScope(name, scope);
        if (typeof next === 'string') return next;
        if (scope === Scope.CurrentUser) {
          const cond = conditionFor(name, sel.arguments ?? []);
          if (typeof cond === 'string') return cond;
          if (cond) conditions.push(cond);
        }
        if (sel.selectionSet) blocked = walk(sel.selectionSet, next);
      }
      if (blocked !== null) return blocked;
    }
    return null;
  };

  const fieldScope = (name: string, scope: Scope): Scope | string => {
    if (scope === Scope.CurrentUser) {
      if (
        s.currentUserAllowedFields.has(name) ||
        s.currentUserFieldsAllowedWhenArgumentIsABot.has(name) ||
        s.currentUserFieldsAllowedWhenArgumentNamesAResource.has(name)
      ) return Scope.Free;
      return `${s.currentUserField}.${name}`;
    }
    if (scope === Scope.Workspace && !s.botWorkspaceAllowedFields.has(name)) {
      return `${s.botWorkspaceField}.${name}`;
    }
    if (s.botFieldsDenied.has(name)) return name;
    if (name === s.currentUserField) return Scope.CurrentUser;
    if (name === s.botWorkspaceField) return Scope.Workspace;
    return Scope.Free;
  };

  const blocked = walk(root, Scope.Free);
  return blocked === null ? { blocked: null, conditions } : { blocked };
}

function conditionFor(
  field: string,
  args: readonly { name: { value: string }; value: ValueNode }[],
): ScopeCondition | string | null {
  const s = ACCOUNT_SCOPE;
  const botArg = s.currentUserFieldsAllowedWhenArgumentIsABot.get(field);
  const resourceArg = s.currentUserFieldsAllowedWhenArgumentNamesAResource.get(field);
  const argument = botArg ?? resourceArg;
  if (argument === undefined) return null;
  const arg = args.find((a) => a.name.value === argument);
  if (!arg) return `${s.currentUserField}.${field}`;
  return { field, argument, need: botArg ? 'bot' : 'resource', value: arg.value };
}
