/**
 * The sandbox's small deterministic world: one user account, 2 workspaces, 3 bots.
 *
 * Workspace A (`WORLD_IDS.workspaceA`, botsLimit 3) holds bots 1 and 2; workspace B
 * (`WORLD_IDS.workspaceB`, botsLimit 2) holds bot 3. Every id is 24-hex lowercase. Resources
 * inside a bot are not stored: their ids are derived from the bot id and the field path
 * (`World.resourceId`), so they differ per bot and never change between runs.
 *
 * The world is mutable through the service's own mutations (workspaceCreateBot, renameBot,
 * deleteBot) and restored by `World.reset()`.
 */
import { botPathSeed, hex24 } from './ids.ts';

/** Fixed ids of the initial world (all `^[0-9a-f]{24}$`). */
export const WORLD_IDS = {
  user: 'a00000000000000000000001',
  workspaceA: 'e0000000000000000000000a',
  workspaceB: 'e0000000000000000000000b',
  bot1: 'b00000000000000000000001',
  bot2: 'b00000000000000000000002',
  bot3: 'b00000000000000000000003',
} as const;

/** The account that owns the sandbox token (what `currentUser` answers). */
export interface WorldUser {
  id: string;
  name: string;
  email: string;
}

/** A workspace of the account. `botsLimit`: creating more bots fails with TooManyBotsInWorkspace. */
export interface WorldWorkspace {
  id: string;
  title: string;
  botsLimit: number;
}

/** A bot. `createdAt` is an ISO 8601 string; `workspaceId` names its WorldWorkspace. */
export interface WorldBot {
  id: string;
  title: string;
  workspaceId: string;
  createdAt: string;
}

/** An upstream refusal raised by a world mutation; `code` is the upstream's extensions.code. */
export class WorldError extends Error {
  /** Upstream error code: BotDoesNotExist, WorkspaceDoesNotExist or TooManyBotsInWorkspace. */
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * The world of one sandbox instance (each `startSandbox` has its own).
 *
 * - `user`, `workspaces`, `bots`: live state (arrays mutate in place).
 * - `bot(id)`, `workspace(id)`: lookups, `undefined` when absent.
 * - `botsOf(workspaceId)`: the workspace's bots in creation order.
 * - `botIds()`: every bot id of the account (what the SvcWorkspaceBots fence query lists).
 * - `resourceId(botId, path)`: the id the sandbox answers at `path` below `data.bot` for
 *   `bot(id: botId) { ... }`, e.g. `resourceId(b, 'flowGroups.0.id')` equals
 *   `data.bot.flowGroups[0].id`; `resourceId(b, 'flowsWithoutGroup.1.id')` likewise. Lists have
 *   2 items. A field taking one id argument echoes it as its object's id
 *   (`flow(flowID: F) { id }` answers F).
 * - `createBot(workspaceId, title)`: adds a bot (ids `b0000…0004`, `…0005`, … in order);
 *   throws WorldError WorkspaceDoesNotExist or TooManyBotsInWorkspace.
 * - `renameBot(botId, title)`, `deleteBot(botId)`: throw WorldError BotDoesNotExist.
 * - `reset()`: back to the initial 2 workspaces and 3 bots.
 */
export interface World {
  readonly user: WorldUser;
  readonly workspaces: WorldWorkspace[];
  readonly bots: WorldBot[];
  bot(id: string): WorldBot | undefined;
  workspace(id: string): WorldWorkspace | undefined;
  botsOf(workspaceId: string): WorldBot[];
  botIds(): string[];
  resourceId(botId: string, path: string): string;
  createBot(workspaceId: string, title: string): WorldBot;
  renameBot(botId: string, title: string): WorldBot;
  deleteBot(botId: string): void;
  reset(): void;
}

const CREATED_AT = '2026-01-01T00:00:00.000Z';

function initialWorkspaces(): WorldWorkspace[] {
  return [
    { id: WORLD_IDS.workspaceA, title: 'Workspace A', botsLimit: 3 },
    { id: WORLD_IDS.workspaceB, title: 'Workspace B', botsLimit: 2 },
  ];
}

function initialBots(): WorldBot[] {
  return [
    {
      id: WORLD_IDS.bot1,
      title: 'Bot 1',
      workspaceId: WORLD_IDS.workspaceA,
      createdAt: CREATED_AT,
    },
    {
      id: WORLD_IDS.bot2,
      title: 'Bot 2',
      workspaceId: WORLD_IDS.workspaceA,
      createdAt: CREATED_AT,
    },
    {
      id: WORLD_IDS.bot3,
      title: 'Bot 3',
      workspaceId: WORLD_IDS.workspaceB,
      createdAt: CREATED_AT,
    },
  ];
}

/** Builds a fresh world in its initial state. */
export function createWorld(): World {
  const workspaces = initialWorkspaces();
  const bots = initialBots();
  let created = 3;
  const bot = (id: string) => bots.find((b) => b.id === id);
  const requireBot = (id: string): WorldBot => {
    const found = bot(id);
    if (!found) throw new WorldError('BotDoesNotExist', `Bot ${id} does not exist`);
    return found;
  };
  return {
    user: { id: WORLD_IDS.user, name: 'Sandbox Owner', email: 'owner@sandbox.invalid' },
    workspaces,
    bots,
    bot,
    workspace: (id) => workspaces.find((w) => w.id === id),
    botsOf: (workspaceId) => bots.filter((b) => b.workspaceId === workspaceId),
    botIds: () => bots.map((b) => b.id),
    resourceId: (botId, path) => hex24(botPathSeed(botId, path)),
    createBot(workspaceId, title) {
      const ws = workspaces.find((w) => w.id === workspaceId);
      if (!ws) throw new WorldError('WorkspaceDoesNotExist', 'Workspace does not exist');
      if (bots.filter((b) => b.workspaceId === workspaceId).length >= ws.botsLimit) {
        throw new WorldError('TooManyBotsInWorkspace', 'Too many bots in workspace');
      }
      created += 1;
      const id = `b${String(created).padStart(23, '0')}`;
      const fresh = { id, title, workspaceId, createdAt: CREATED_AT };
      bots.push(fresh);
      return fresh;
    },
    renameBot(botId, title) {
      const found = requireBot(botId);
      found.title = title;
      return found;
    },
    deleteBot(botId) {
      requireBot(botId);
      bots.splice(bots.findIndex((b) => b.id === botId), 1);
    },
    reset() {
      workspaces.splice(0, workspaces.length, ...initialWorkspaces());
      bots.splice(0, bots.length, ...initialBots());
      created = 3;
    },
  };
}
