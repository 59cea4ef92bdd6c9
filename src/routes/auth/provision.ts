/**
 * POST <authPath>/provision and POST <authPath>/bots (SPEC "Route table", "Sign-up and bot
 * routes"). Provision asks svc_provision as the caller: ready → the workspace and bots; pending →
 * another call is creating the first bot, ask again shortly; reserved → create upstream, attach.
 */
import { DEFAULTS } from '../../config/defaults.ts';
import {
  type Answer,
  type AuthRequest,
  botSetChanged,
  callerJwt,
  callerRpc,
  fromDatabase,
  ok,
  readJsonObject,
  refuse,
  tokenMissing,
} from './context.ts';
import { createAndAttach, type Reservation } from './create.ts';
import type { AuthBot, AuthWorkspace, CreateBotAnswer, ProvisionAnswer } from './types.ts';

/** The name a first bot gets when provision's body names none. */
export const DEFAULT_BOT_NAME = 'My bot';

/** svc_provision's answer. */
type ProvisionState =
  & { state: 'ready' | 'pending' | 'reserved'; workspace: AuthWorkspace; bots: AuthBot[] }
  & Partial<Reservation>;

/** The `name` of a body: trimmed, or a 422 BadBotName for anything but a non-blank string. */
export function botName(body: Record<string, unknown>, fallback?: string): string | Answer {
  const name = body.name ?? fallback;
  if (typeof name !== 'string' || name.trim() === '') {
    return refuse('BadBotName', 'The bot needs a name (a non-blank string)');
  }
  return name.trim();
}

/** POST provision: body `{}` or `{name}` (the first bot's name). */
export async function provision(req: AuthRequest): Promise<Answer> {
  const caller = callerJwt(req);
  if (!('jwt' in caller)) return caller;
  const body = await readJsonObject(req, true);
  if (!('value' in body)) return body;
  const name = botName(body.value, DEFAULT_BOT_NAME);
  if (typeof name !== 'string') return name;
  const missing = tokenMissing(req.ctx);
  if (missing) return missing;
  const deadline = Date.now() + req.ctx.core.config.timeoutMs + DEFAULTS.provisionPendingGraceMs;
  while (true) {
    const asked = await callerRpc(req, caller.jwt, 'svc_provision', { p_name: name });
    if (!ok(asked)) return fromDatabase(asked);
    const state = asked.data as ProvisionState;
    const answer = (created: AuthBot | null, pending: boolean): Answer => ({
      status: 200,
      body: {
        workspace: state.workspace,
        bots: created ? [...state.bots, created] : state.bots,
        created,
        pending,
      } satisfies ProvisionAnswer,
    });
    if (state.state === 'ready') return answer(null, false);
    if (state.state === 'pending') {
      if (Date.now() >= deadline) return answer(null, true);
      await new Promise((resolve) => setTimeout(resolve, DEFAULTS.provisionPendingPollMs));
      continue;
    }
    const made = await createAndAttach(req, state as Reservation, name);
    if ('bot' in made) {
      botSetChanged(req, caller);
      return answer(made.bot, false);
    }
    if (!made.lost || Date.now() >= deadline) return made.answer;
  }
}

/** POST bots {name}: another bot in the caller's workspace (201). */
export async function createBot(req: AuthRequest): Promise<Answer> {
  const caller = callerJwt(req);
  if (!('jwt' in caller)) return caller;
  const body = await readJsonObject(req, false);
  if (!('value' in body)) return body;
  const name = botName(body.value);
  if (typeof name !== 'string') return name;
  const missing = tokenMissing(req.ctx);
  if (missing) return missing;
  const reserved = await callerRpc(req, caller.jwt, 'svc_bot_reserve', { p_name: name });
  if (!ok(reserved)) return fromDatabase(reserved);
  const made = await createAndAttach(req, reserved.data as Reservation, name);
  if ('bot' in made) {
    botSetChanged(req, caller);
    return { status: 201, body: { bot: made.bot } satisfies CreateBotAnswer };
  }
  return made.answer;
}
