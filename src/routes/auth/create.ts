/**
 * Reservation → upstream create → attach: the one path by which a bot comes to exist, shared by
 * provision and POST bots (SPEC "Sign-up and bot routes"; facts.json SvcProvisionBot). The
 * upstream answers map to the spec's rows; a failed create releases the reservation, a failed
 * attach deletes the upstream bot again (facts.json SvcDeleteBot: "rollback of a create").
 */
import { deleteBot, provisionBot } from '../../upstream/service_operations.ts';
import {
  type Answer,
  type AuthRequest,
  fromDatabase,
  ok,
  refuse,
  serviceRpc,
  upstreamCall,
} from './context.ts';
import type { AuthBot } from './types.ts';

/** A reservation handed out by svc_provision / svc_bot_reserve. */
export interface Reservation {
  reservation: string;
  token: string;
}

/** Whether `value` holds a reservation (two strings), as svc_provision and svc_bot_reserve give. */
export function isReservation(value: unknown): value is Reservation {
  if (typeof value !== 'object' || value === null) return false;
  const held = value as Record<string, unknown>;
  return typeof held.reservation === 'string' && typeof held.token === 'string';
}

/** The created bot, or the answer to give instead; `lost`: another call took the reservation over. */
export type CreateResult = { bot: AuthBot } | { answer: Answer; lost?: boolean };

/** The only log line of these routes (SPEC: names the variable, never a token). */
const UNREACHABLE_LOG =
  'svc-gateway: provision could not reach the upstream (SVC_API_BASE) to create a bot';

/** Creates the bot named `name` upstream for `held` and attaches its id. */
export async function createAndAttach(
  req: AuthRequest,
  held: Reservation,
  name: string,
): Promise<CreateResult> {
  const { ctx } = req;
  const workspaceId = ctx.core.config.workspaceId!;
  const created = await provisionBot(upstreamCall(ctx), workspaceId, name);
  if (created.kind !== 'created') {
    await release(req, held);
    return { answer: createRefused(created, workspaceId, ctx.core.log) };
  }
  const attached = await serviceRpc(req, 'svc_bot_attach', {
    p_reservation: held.reservation,
    p_token: held.token,
    p_upstream_bot_id: created.botId,
  });
  if (ok(attached)) return { bot: attached.data as AuthBot };
  await deleteBot(upstreamCall(ctx), created.botId);
  const lost = attached.error?.hint === 'reservation_lost';
  // not taken over: the reservation is still ours; drop it (else it waits out its ttl)
  if (!lost) await release(req, held);
  return { answer: fromDatabase(attached), lost };
}

/** Drops the reservation (best effort: a failure leaves it to expire after its ttl). */
async function release(req: AuthRequest, held: Reservation): Promise<void> {
  await serviceRpc(req, 'svc_bot_release', {
    p_reservation: held.reservation,
    p_token: held.token,
  });
}

function createRefused(
  created: Exclude<Awaited<ReturnType<typeof provisionBot>>, { kind: 'created' }>,
  workspaceId: string,
  log: (line: string) => void,
): Answer {
  switch (created.kind) {
    case 'unreachable':
      log(UNREACHABLE_LOG);
      return refuse('ProvisionUnreachable', 'The upstream could not be reached to create a bot');
    case 'workspace_full':
      return refuse('WorkspaceFull', 'The upstream workspace holds its maximum number of bots');
    case 'workspace_refused':
      return refuse(
        'ProxyAuthMisconfigured',
        `The upstream answered ${created.code} for SVC_WORKSPACE_ID ${workspaceId}`,
      );
    case 'refused':
      return refuse(
        'ProvisionRefused',
        created.status === 200
          ? 'The upstream refused to create the bot'
          : `The upstream refused to create the bot (status ${created.status})`,
      );
  }
}
