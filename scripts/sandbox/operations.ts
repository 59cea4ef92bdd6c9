/**
 * The app's real documents (`data/upstream/operations/*.graphql`), split into one standalone
 * document per operation (with the fragments it uses), plus sample variables for each, so tests,
 * the demo and the benchmark can send real traffic without writing documents by hand.
 */
import { readdirSync, readFileSync } from 'node:fs';
import {
  getNamedType,
  type GraphQLInputType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  type OperationDefinitionNode,
  parse,
  print,
  separateOperations,
  typeFromAST,
} from 'graphql';
import { hex24 } from './ids.ts';
import { upstreamSchema } from './schema.ts';
import { WORLD_IDS } from './world.ts';

const OPERATIONS_DIR = new URL('../../data/upstream/operations/', import.meta.url);

/** One app operation: its file (e.g. 'core.graphql'), name, kind and standalone document text. */
export interface AppOperation {
  file: string;
  name: string;
  kind: 'query' | 'mutation' | 'subscription';
  query: string;
  /**
   * Sample variables: every BotID variable is `botId`, every WorkspaceID its world workspace
   * (A, or B for bot 3), other values invented per type (ids 24-hex, derived from botId).
   */
  variables(botId: string): Record<string, unknown>;
}

let cached: AppOperation[] | null = null;

/** Every operation of every app document, in file then document order (cached per process). */
export function appOperations(): AppOperation[] {
  if (cached) return cached;
  const schema = upstreamSchema();
  const out: AppOperation[] = [];
  const files = readdirSync(OPERATIONS_DIR).filter((f) => f.endsWith('.graphql')).sort();
  for (const file of files) {
    const document = parse(readFileSync(new URL(file, OPERATIONS_DIR), 'utf8'));
    const separated = separateOperations(document);
    for (const def of document.definitions) {
      if (def.kind !== Kind.OPERATION_DEFINITION || !def.name) continue;
      const name = def.name.value;
      out.push({
        file,
        name,
        kind: def.operation,
        query: print(separated[name]),
        variables: (botId) => sampleVariables(schema, def, botId),
      });
    }
  }
  cached = out;
  return out;
}

/** Sample values for an operation's variables (defaults kept absent, nullable ones included). */
export function sampleVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  botId: string,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const def of operation.variableDefinitions ?? []) {
    if (def.defaultValue) continue;
    const type = typeFromAST(schema, def.type) as GraphQLInputType | undefined;
    if (type) values[def.variable.name.value] = sampleInput(type, def.variable.name.value, botId);
  }
  return values;
}

function sampleInput(type: GraphQLInputType, name: string, botId: string, depth = 0): unknown {
  if (isNonNullType(type)) return sampleInput(type.ofType, name, botId, depth);
  if (isListType(type)) return [sampleInput(type.ofType, name, botId, depth)];
  if (isEnumType(type)) return type.getValues()[0].value;
  if (isInputObjectType(type)) {
    const out: Record<string, unknown> = {};
    for (const field of Object.values(type.getFields())) {
      if (!isNonNullType(field.type) || depth > 8) continue;
      out[field.name] = sampleInput(field.type, field.name, botId, depth + 1);
    }
    return out;
  }
  return sampleScalar(getNamedType(type).name, name, botId);
}

function sampleScalar(scalar: string, name: string, botId: string): unknown {
  switch (scalar) {
    case 'BotID':
      return botId;
    case 'WorkspaceID':
      return botId === WORLD_IDS.bot3 ? WORLD_IDS.workspaceB : WORLD_IDS.workspaceA;
    case 'Int':
    case 'Long':
    case 'Float':
      return 1;
    case 'Boolean':
      return true;
    case 'Time':
      return '2026-01-01T00:00:00.000Z';
    case 'Map':
      return {};
    case 'String':
      return /url/i.test(name) ? 'https://sandbox.invalid/x' : 'sample';
  }
  if (scalar === 'ID' || /(ID|Id)$/.test(scalar)) return hex24(`sample:${botId}:${name}`);
  return 'sample';
}
