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
import { createAndAttach, isReservation, type Reservation } from './create.ts';
import type { AuthBot, AuthWorkspace, CreateBotAnswer, ProvisionAnswer } from './types.ts';

/** The name a first bot gets when provision's body names none. */
export const DEFAULT_BOT_NAME = 'My bot';

/** svc_provision's answer. */
type ProvisionState =
  & { state: 'ready' | 'pending' | 'reserved'; workspace: AuthWorkspace; bots: AuthBot[] }
  & Partial<Reservation>;

/**
 * svc_provision's answer when it has the shape of one (a known state, a workspace object, a bots
 * array, and a reservation when reserved), else null: a backend answer of another shape is
 * treated as no answer (503 ProxyAuthUnavailable), never as a reservation to create a bot for.
 */
export function provisionStateOf(data: unknown): ProvisionState | null {
  if (typeof data !== 'object' || data === null) return null;
  const state = data as Record<string, unknown>;
  if (!['ready', 'pending', 'reserved'].includes(state.state as string)) return null;
  if (typeof state.workspace !== 'object' || state.workspace === null) return null;
  if (!Array.isArray(state.bots)) return null;
  if (state.state === 'reserved' && !isReservation(state)) return null;
  return data as ProvisionState;
}

/** 503 ProxyAuthUnavailable for a backend answer that is not the expected shape. */
function unexpectedAnswer(fn: string): Answer {
  return refuse('ProxyAuthUnavailable', `The backend answered ${fn} in an unexpected shape`);
}

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
    const state = provisionStateOf(asked.data);
    if (state === null) return unexpectedAnswer('svc_provision');
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
    const made = await createAndAttach(req, state as ProvisionState & Reservation, name);
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
  if (!isReservation(reserved.data)) return unexpectedAnswer('svc_bot_reserve');
  const made = await createAndAttach(req, reserved.data, name);
  if ('bot' in made) {
    botSetChanged(req, caller);
    return { status: 201, body: { bot: made.bot } satisfies CreateBotAnswer };
  }
  return made.answer;
}
