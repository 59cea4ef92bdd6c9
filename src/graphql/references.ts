/**
 * Bots and resource ids named by one request: the operation's argument sites resolved
 * against the request's variables (SPEC step 17-20 inputs; "Resource fence": an id is a
 * quoted 24-hex string under an argument named id, or ending in ID/Id/IDs/Ids, or an extra
 * name, never under an excluded one; from literals, variables and defaults, inside nested
 * input objects and lists, keyed by the input field name).
 *
 * Walks are iterative (an explicit stack), so deep values cannot exhaust the call stack;
 * every value node walked counts against `maxVariableNodesWalked`.
 *
 * @module
 */

import { Kind, type ValueNode } from 'graphql';
import {
  type AnalysisLimits,
  BOT_ID_ARGUMENTS,
  isResourceArgumentName,
  RESOURCE_ID_ARGUMENTS,
} from './lists.ts';
import type { ArgumentSite, VariableDeclaration } from './operation_facts.ts';
import type { BotReference, ResourceReference } from './types.ts';

/** Where a value sits: a bot slot (`label` for sentences), or under a named key. */
type Slot =
  | { bot: true; label: string }
  | { bot: false; name: string; resource: boolean };

/** The references of one request; `failure` is a refusal sentence (400). */
export interface References {
  bots: BotReference[];
  unresolvableBot: string | null;
  resources: ResourceReference[];
  failure: string | null;
}

/** A value the walker still has to visit. */
type Pending = { ast: ValueNode; slot: Slot } | { json: unknown; slot: Slot };

/** Variables of a request (never null here). */
export type Variables = Readonly<Record<string, unknown>>;

/** The slot of an input field or JSON object key. */
function keySlot(name: string): Slot {
  if (BOT_ID_ARGUMENTS.anyField.has(name)) return { bot: true, label: name };
  return { bot: false, name, resource: isResourceArgumentName(name) };
}

/** The slot of an argument written on `field`. */
function argumentSlot(field: string, argument: string): Slot {
  if (BOT_ID_ARGUMENTS.fieldsWithOtherArgumentName.get(field) === argument) {
    return { bot: true, label: `${field}(${argument}:)` };
  }
  if (RESOURCE_ID_ARGUMENTS.excludedFieldArguments.get(field) === argument) {
    return { bot: false, name: argument, resource: false };
  }
  return keySlot(argument);
}

/**
 * Collects bots and resource ids for the given argument sites and variables. Also reads
 * the top-level `botID`/`botId` variables (whether the document uses them or not).
 */
export function collectReferences(
  sites: readonly ArgumentSite[],
  declarations: ReadonlyMap<string, VariableDeclaration>,
  variables: Variables,
  limits: AnalysisLimits,
): References {
  const out: References = { bots: [], unresolvableBot: null, resources: [], failure: null };
  const botValues = new Set<unknown>();
  const resourceIds = new Set<string>();
  let walked = 0;

  const addBot = (value: unknown, argument: string) => {
    if (typeof value === 'string') {
      if (botValues.has(value)) return;
      botValues.add(value);
    }
    out.bots.push({ value, argument });
  };
  const addResource = (raw: string, argument: string): boolean => {
    const id = raw.toLowerCase();
    if (resourceIds.has(id)) return true;
    if (resourceIds.size >= limits.maxResourcesPerRequest) {
      out.failure =
        `The request names more than ${limits.maxResourcesPerRequest} resource ids; send fewer at a time.`;
      return false;
    }
    resourceIds.add(id);
    out.resources.push({ id, argument });
    return true;
  };
  const unresolvable = (why: string) => {
    out.unresolvableBot ??= why;
  };

  for (const name of BOT_ID_ARGUMENTS.variableNames) {
    const v = Object.hasOwn(variables, name) ? variables[name] : undefined;
    if (v !== undefined) addBot(v, `variables.${name}`); // null names a bot too (step 17)
  }

  const stack: Pending[] = [];
  for (let i = sites.length - 1; i >= 0; i--) {
    const site = sites[i];
    stack.push({ ast: site.value, slot: argumentSlot(site.field, site.argument) });
  }

  while (stack.length > 0) {
    if (++walked > limits.maxVariableNodesWalked) {
      out.failure = `The request has more than ${limits.maxVariableNodesWalked} values to check.`;
      return out;
    }
    const item = stack.pop()!;
    const ok = 'ast' in item
      ? visitAst(
        item.ast,
        item.slot,
        stack,
        declarations,
        variables,
        addBot,
        addResource,
        unresolvable,
      )
      : visitJson(item.json, item.slot, stack, addBot, addResource, unresolvable);
    if (!ok) return out;
  }
  return out;
}

type AddBot = (value: unknown, argument: string) => void;
type AddResource = (raw: string, argument: string) => boolean;
type Unresolvable = (why: string) => void;

function visitAst(
  node: ValueNode,
  slot: Slot,
  stack: Pending[],
  declarations: ReadonlyMap<string, VariableDeclaration>,
  variables: Variables,
  addBot: AddBot,
  addResource: AddResource,
  unresolvable: Unresolvable,
): boolean {
  switch (node.kind) {
    case Kind.VARIABLE:
      return visitVariable(node.name.value, slot, stack, declarations, variables, unresolvable);
    case Kind.NULL:
      if (slot.bot) addBot(null, slot.label); // a bot slot given null names a bot (step 17)
      return true;
    case Kind.STRING:
      if (slot.bot) addBot(node.value, slot.label);
      else if (slot.resource && RESOURCE_ID_ARGUMENTS.valuePattern.test(node.value)) {
        return addResource(node.value, slot.name);
      }
      return true;
    case Kind.INT:
      if (slot.bot) addBot(Number(node.value), slot.label);
      // An ID argument also accepts an integer literal: 24 digits are 24 hex characters.
      else if (slot.resource && RESOURCE_ID_ARGUMENTS.valuePattern.test(node.value)) {
        return addResource(node.value, slot.name);
      }
      return true;
    case Kind.FLOAT:
      if (slot.bot) addBot(Number(node.value), slot.label);
      return true;
    case Kind.BOOLEAN:
      if (slot.bot) addBot(node.value, slot.label);
      return true;
    case Kind.ENUM:
      if (slot.bot) addBot({ enum: node.value }, slot.label);
      // Some servers read an enum-shaped literal of a custom scalar as its name.
      else if (slot.resource && RESOURCE_ID_ARGUMENTS.valuePattern.test(node.value)) {
        return addResource(node.value, slot.name);
      }
      return true;
    case Kind.LIST:
      if (slot.bot) unresolvable(`${slot.label} is a list where one bot id is expected.`);
      else {for (let i = node.values.length - 1; i >= 0; i--) {
          stack.push({ ast: node.values[i], slot });
        }}
      return true;
    case Kind.OBJECT:
      if (slot.bot) unresolvable(`${slot.label} is an object where a bot id is expected.`);
      else {
        for (let i = node.fields.length - 1; i >= 0; i--) {
          const f = node.fields[i];
          stack.push({ ast: f.value, slot: keySlot(f.name.value) });
        }
      }
      return true;
  }
}

function visitVariable(
  name: string,
  given: Slot,
  stack: Pending[],
  declarations: ReadonlyMap<string, VariableDeclaration>,
  variables: Variables,
  unresolvable: Unresolvable,
): boolean {
  const decl = declarations.get(name);
  let slot = given;
  if (decl && !slot.bot) {
    if (decl.namedType === BOT_ID_ARGUMENTS.declaredType) slot = { bot: true, label: `$${name}` };
    else if (slot.resource && RESOURCE_ID_ARGUMENTS.excludedDeclaredTypes.has(decl.namedType)) {
      slot = { bot: false, name: slot.name, resource: false };
    }
  }
  const supplied = Object.hasOwn(variables, name) ? variables[name] : undefined;
  if (supplied !== undefined) stack.push({ json: supplied, slot });
  else if (decl?.defaultValue) stack.push({ ast: decl.defaultValue, slot });
  else if (slot.bot) {
    unresolvable(
      `${slot.label} comes from variable $${name}, which is neither supplied nor defaulted.`,
    );
  }
  return true;
}

function visitJson(
  value: unknown,
  slot: Slot,
  stack: Pending[],
  addBot: AddBot,
  addResource: AddResource,
  unresolvable: Unresolvable,
): boolean {
  if (value === undefined) return true;
  if (value === null) {
    if (slot.bot) addBot(null, slot.label); // a bot slot given null names a bot (step 17)
    return true;
  }
  if (slot.bot) {
    if (typeof value === 'object') {
      const shape = Array.isArray(value) ? 'a list' : 'an object';
      unresolvable(`${slot.label} is ${shape} where one bot id is expected.`);
    } else addBot(value, slot.label);
    return true;
  }
  if (typeof value === 'string') {
    if (slot.resource && RESOURCE_ID_ARGUMENTS.valuePattern.test(value)) {
      return addResource(value, slot.name);
    }
    return true;
  }
  if (Array.isArray(value)) {
    for (let i = value.length - 1; i >= 0; i--) stack.push({ json: value[i], slot });
  } else if (typeof value === 'object') {
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      stack.push({ json: (value as Record<string, unknown>)[keys[i]], slot: keySlot(keys[i]) });
    }
  }
  return true;
}

/**
 * The plain value of an argument for a request: a literal's value, a variable's supplied
 * value, else its default's value; `undefined` when a variable is neither supplied nor
 * defaulted. Lists and objects come back as `{}` (only scalars are asked for).
 */
export function resolveScalar(
  node: ValueNode,
  declarations: ReadonlyMap<string, VariableDeclaration>,
  variables: Variables,
): unknown {
  if (node.kind === Kind.VARIABLE) {
    const name = node.name.value;
    if (Object.hasOwn(variables, name) && variables[name] !== undefined) return variables[name];
    const def = declarations.get(name)?.defaultValue;
    return def ? literalScalar(def) : undefined;
  }
  return literalScalar(node);
}

function literalScalar(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.NULL:
      return null;
    case Kind.STRING:
    case Kind.ENUM:
    case Kind.INT:
    case Kind.FLOAT:
      return node.value;
    case Kind.BOOLEAN:
      return node.value;
    default:
      return {};
  }
}
