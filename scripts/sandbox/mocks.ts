/**
 * Deterministic mock values for any field of the upstream schema.
 *
 * An object in an answer is a `Mock`: its type name, its seed (`bot:<id>/<field>.<index>/...`),
 * the bot it lives under, and optional fixed fields backed by the world. Any other field is
 * invented from the seed: ids are `hex24(seed + '/' + field)`, lists have 2 items, enums and
 * abstract types pick a member by hash. Nothing is random; nothing is stored.
 */
import {
  getNamedType,
  GraphQLError,
  type GraphQLField,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  isAbstractType,
  isEnumType,
  isListType,
  isNonNullType,
  isScalarType,
} from 'graphql';
import { digest, hashInt, hex24 } from './ids.ts';
import type { SandboxSwitches } from './switches.ts';
import type { World, WorldBot, WorldWorkspace } from './world.ts';

/** The context every resolver receives. */
export interface ExecContext {
  world: World;
  switches: SandboxSwitches;
}

/** A field answered from the world instead of invented. */
export type FixedField = (args: Record<string, unknown>, ctx: ExecContext) => unknown;

/** An object of an answer (see the module comment). */
export class Mock {
  constructor(
    readonly typeName: string,
    readonly seed: string,
    readonly botId: string | null,
    readonly fixed: Record<string, FixedField> = {},
  ) {}
}

/** Number of items in every invented list. */
export const LIST_LENGTH = 2;

/** Throws the upstream's refusal for a bot the account does not hold (code BotDoesNotExist). */
export function requireBot(ctx: ExecContext, botId: string): WorldBot {
  const bot = ctx.world.bot(botId);
  if (!bot) {
    throw new GraphQLError(`Bot ${botId} does not exist`, {
      extensions: { code: 'BotDoesNotExist' },
    });
  }
  return bot;
}

/** The world-backed `Bot` object; its invented fields are seeded `bot:<id>`. */
export function botObject(bot: WorldBot): Mock {
  return new Mock('Bot', `bot:${bot.id}`, bot.id, {
    id: () => bot.id,
    title: () => bot.title,
    createdAt: () => bot.createdAt,
    isReady: () => true,
    countryCode: () => 'US',
    timezone: () => 'UTC',
    workspace: (_args, ctx) => {
      const ws = ctx.world.workspace(bot.workspaceId);
      return ws ? workspaceObject(ws) : null;
    },
  });
}

/** The world-backed `Workspace` object. */
export function workspaceObject(ws: WorldWorkspace): Mock {
  return new Mock('Workspace', `workspace:${ws.id}`, null, {
    id: () => ws.id,
    title: () => ws.title,
    botsLimit: () => ws.botsLimit,
    bots: (_args, ctx) => ctx.world.botsOf(ws.id).map(botObject),
  });
}

/** The world-backed `CurrentUserAccount` object (the token's owner). */
export function userObject(ctx: ExecContext): Mock {
  const user = ctx.world.user;
  return new Mock('CurrentUserAccount', `user:${user.id}`, null, {
    id: () => user.id,
    name: () => user.name,
    email: () => user.email,
    workspaces: (_args, c) => c.world.workspaces.map(workspaceObject),
    workspace: (args, c) => {
      const ws = c.world.workspace(String(args.id));
      if (!ws) {
        throw new GraphQLError('Workspace does not exist', {
          extensions: { code: 'WorkspaceDoesNotExist' },
        });
      }
      return workspaceObject(ws);
    },
    botRole: (args, c) => {
      const bot = requireBot(c, String(args.botID));
      return new Mock('Role', `bot:${bot.id}/botRole`, bot.id, { roleTypeV2: () => 'Admin' });
    },
  });
}

const EXCLUDED_ID_ARGS = new Set([
  'botID',
  'botId',
  'assigneeID',
  'targetWorkspaceID',
  'userID',
  'workspaceID',
]);
const EXCLUDED_ID_TYPES = new Set([
  'BotID',
  'UserAccountID',
  'WorkspaceID',
  'WorkspaceTeamMemberID',
]);

/**
 * The id a field echoes as its object's id: the value of its only resource-id argument
 * (name `id` or ending ID/Id, not a bot/user/workspace id), when it returns a single object.
 */
export function echoedId(
  field: GraphQLField<unknown, unknown> | undefined,
  args: Record<string, unknown>,
): string | null {
  if (!field || isListType(isNonNullType(field.type) ? field.type.ofType : field.type)) return null;
  if (isScalarType(getNamedType(field.type)) || isEnumType(getNamedType(field.type))) return null;
  const ids = field.args.filter((arg) =>
    (arg.name === 'id' || /(ID|Id)$/.test(arg.name)) && !EXCLUDED_ID_ARGS.has(arg.name) &&
    !EXCLUDED_ID_TYPES.has(getNamedType(arg.type).name) && typeof args[arg.name] === 'string'
  );
  return ids.length === 1 ? String(args[ids[0].name]) : null;
}

/** Resolves a field of a Mock: its fixed value, else an invented one. */
export function resolveMockField(
  parent: Mock,
  args: Record<string, unknown>,
  ctx: ExecContext,
  info: GraphQLResolveInfo,
): unknown {
  const fixed = parent.fixed[info.fieldName];
  if (fixed) return fixed(args, ctx);
  const field = info.parentType.getFields()[info.fieldName];
  const echo = echoedId(field, args);
  const seed = `${parent.seed}/${info.fieldName}${echo ? `(${echo})` : ''}`;
  return mockValue(info.returnType, seed, parent.botId, ctx, info, echo);
}

/**
 * Invents a value of `type` for `seed` under bot `botId` (null: outside any bot).
 * `echo`: an id to use as the object's `id` (see `echoedId`).
 */
export function mockValue(
  type: GraphQLOutputType,
  seed: string,
  botId: string | null,
  ctx: ExecContext,
  info: GraphQLResolveInfo,
  echo: string | null = null,
): unknown {
  if (isNonNullType(type)) return mockValue(type.ofType, seed, botId, ctx, info, echo);
  if (isListType(type)) {
    return Array.from(
      { length: LIST_LENGTH },
      (_, i) => mockValue(type.ofType, `${seed}.${i}`, botId, ctx, info),
    );
  }
  if (isScalarType(type)) return scalarValue(type.name, seed, info.fieldName, botId, ctx);
  if (isEnumType(type)) {
    const values = type.getValues();
    return values[hashInt(seed) % values.length].value;
  }
  let object = type;
  if (isAbstractType(type)) {
    const possible = [...info.schema.getPossibleTypes(type)].sort((a, b) =>
      a.name < b.name ? -1 : 1
    );
    object = possible[hashInt(seed) % possible.length];
  }
  return objectFor(object.name, seed, botId, ctx, echo);
}

function objectFor(
  typeName: string,
  seed: string,
  botId: string | null,
  ctx: ExecContext,
  echo: string | null,
): Mock {
  const bot = botId ? ctx.world.bot(botId) : undefined;
  if (typeName === 'Bot' && bot) return botObject(bot);
  if (typeName === 'Workspace' && bot) {
    const ws = ctx.world.workspace(bot.workspaceId);
    if (ws) return workspaceObject(ws);
  }
  if (typeName === 'CurrentUserAccount') return userObject(ctx);
  return new Mock(typeName, seed, botId, echo ? { id: () => echo } : {});
}

const FIXED_SCALARS: Record<string, unknown> = {
  Map: {},
  CountryCode: 'US',
  BotTimezone: 'UTC',
  OpenAIModel: 'gpt-4o-mini',
  SchemaVersion: 'sandbox-1',
  BookingTimeString: '09:00',
  SpecialistScheduleTime: '09:00',
};

const EPOCH_MS = Date.UTC(2026, 0, 1);

/** Invents a scalar: ids are 24-hex, cursors and tokens are not (so no fence learns them). */
export function scalarValue(
  name: string,
  seed: string,
  fieldName: string,
  botId: string | null,
  ctx: ExecContext,
): unknown {
  if (name in FIXED_SCALARS) return FIXED_SCALARS[name];
  const h = hashInt(seed);
  switch (name) {
    case 'BotID':
      return botId ?? hex24(seed);
    case 'WorkspaceID':
      return (botId && ctx.world.bot(botId)?.workspaceId) || hex24(seed);
    case 'Boolean':
      return h % 2 === 0;
    case 'Int':
    case 'Long':
      return h % 100;
    case 'Float':
      return (h % 10000) / 100;
    case 'Time':
      return new Date(EPOCH_MS + (h % 525600) * 60000).toISOString();
    case 'String':
      return stringValue(fieldName, seed);
  }
  if (name === 'ID' || /(ID|Id)$/.test(name)) return hex24(seed);
  if (name.endsWith('Cursor')) return `cursor-${digest(seed).slice(0, 12)}`;
  if (name.endsWith('Token')) return `token-${digest(seed).slice(0, 16)}`;
  return `${name}-${digest(seed).slice(0, 8)}`;
}

function stringValue(fieldName: string, seed: string): string {
  const short = digest(seed).slice(0, 8);
  const lower = fieldName.toLowerCase();
  if (lower.includes('email')) return `user-${short}@sandbox.invalid`;
  if (/url|link|src/.test(lower)) return `https://sandbox.invalid/${fieldName}/${short}`;
  if (lower.includes('phone')) return `+1555${String(hashInt(seed) % 10000000).padStart(7, '0')}`;
  return `${fieldName} ${short.slice(0, 6)}`;
}

/** Type resolver for interfaces and unions: a Mock knows its concrete type. */
export function typeResolver(value: unknown): string | undefined {
  return value instanceof Mock ? value.typeName : undefined;
}
