/**
 * Root fields of the sandbox: the few answered from the world (the service's own operations of
 * facts.json `upstreamOperationsUsedByService`), and a generic root for every other field.
 *
 * World-backed: `bot(id)`, `currentUser` (id, name, email, workspaces, workspace(id), botRole),
 * `workspaceCreateBot`, `renameBot`, `deleteBot`. Any field with a BotID argument naming a bot
 * the account does not hold answers the error code BotDoesNotExist.
 */
import {
  getNamedType,
  GraphQLError,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
} from 'graphql';
import {
  botObject,
  echoedId,
  type ExecContext,
  Mock,
  mockValue,
  requireBot,
  resolveMockField,
  userObject,
} from './mocks.ts';
import { eventStream } from './stream.ts';
import { WorldError } from './world.ts';

type Args = Record<string, unknown>;
type RootResolver = (args: Args, ctx: ExecContext, info: GraphQLResolveInfo) => unknown;

function worldCall<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof WorldError) {
      throw new GraphQLError(error.message, { extensions: { code: error.code } });
    }
    throw error;
  }
}

const ROOTS: Record<string, Record<string, RootResolver>> = {
  Query: {
    bot: (args, ctx) => botObject(requireBot(ctx, String(args.id))),
    currentUser: (_args, ctx) => userObject(ctx),
  },
  Mutation: {
    workspaceCreateBot: (args, ctx) =>
      botObject(
        worldCall(() => ctx.world.createBot(String(args.workspaceID), String(args.initialTitle))),
      ),
    renameBot: (args, ctx) =>
      botObject(worldCall(() => ctx.world.renameBot(String(args.botID), String(args.newTitle)))),
    deleteBot: (args, ctx) => {
      worldCall(() => ctx.world.deleteBot(String(args.botID)));
      return userObject(ctx);
    },
  },
};

/** The bot a root field is about: the value of its first BotID-typed argument, else null. */
function botArgument(args: Args, info: GraphQLResolveInfo): string | null {
  const field = info.parentType.getFields()[info.fieldName];
  const arg = field?.args.find((a) =>
    getNamedType(a.type).name === 'BotID' && typeof args[a.name] === 'string'
  );
  return arg ? String(args[arg.name]) : null;
}

/** Seed, bot and echoed id of a root field (`bot:<id>/<field>` or `root/<field>`). */
function rootScope(args: Args, ctx: ExecContext, info: GraphQLResolveInfo) {
  const botId = botArgument(args, info);
  if (botId) requireBot(ctx, botId);
  const echo = echoedId(info.parentType.getFields()[info.fieldName], args);
  const seed = `${botId ? `bot:${botId}` : 'root'}/${info.fieldName}${echo ? `(${echo})` : ''}`;
  return { botId, echo, seed };
}

/**
 * The field resolver of every execution (HTTP and socket): Mock fields, subscription event
 * payloads, world-backed roots, then invented roots.
 */
export const fieldResolver: GraphQLFieldResolver<unknown, ExecContext> = (
  source,
  args,
  ctx,
  info,
) => {
  if (source instanceof Mock) return resolveMockField(source, args, ctx, info);
  if (info.parentType === info.schema.getSubscriptionType()) return source;
  const own = ROOTS[info.parentType.name]?.[info.fieldName];
  if (own) return own(args, ctx, info);
  const { botId, echo, seed } = rootScope(args, ctx, info);
  return mockValue(info.returnType, seed, botId, ctx, info, echo);
};

/**
 * Source streams of Subscription fields: `switches.stream` decides count, tick and completion;
 * event n is the mock seeded `<root seed>#<n>` (bound to the bot argument, if any).
 */
export const subscribeFieldResolver: GraphQLFieldResolver<unknown, ExecContext> = (
  _source,
  args,
  ctx,
  info,
) => {
  const { botId, echo, seed } = rootScope(args, ctx, info);
  return eventStream(
    (n) => mockValue(info.returnType, `${seed}#${n}`, botId, ctx, info, echo),
    ctx.switches.stream,
  );
};
