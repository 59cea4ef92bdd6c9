/**
 * Steps 18 to 20 of SPEC "Order in which a GraphQL body is checked": the bot
 * fence and the resource fence. An operation naming no bot and no resource
 * passes them.
 */
import { type Refusal, refusal } from '../http/error_codes.ts';
import type { FenceAnswer } from './bot_fence.ts';
import type { Step } from './chain.ts';
import type { GraphqlState as S } from './graphql_state.ts';

const namesResources = (s: S) => s.analyses.some((a) => a.resources.length > 0);

/** Records the fence answer; 503 ProxyFenceUnavailable when there is none. */
function settleFence(s: S, answer: FenceAnswer): Refusal | null {
  s.fence = answer;
  if (answer !== 'unavailable') return null;
  return refusal(
    'ProxyFenceUnavailable',
    'The proxy cannot tell which bots this deployment may use right now; try again shortly',
  );
}

/** Step 18: the caller's bot set, from the session (gate on) or the bot fence. */
export const fenceResolvable: Step<S> = {
  step: 18,
  check: 'the fence can be resolved when a bot or resource is named',
  run(s) {
    if (s.bots.size === 0 && !namesResources(s)) return null;
    if (s.session?.botIds) {
      s.fence = s.session.botIds;
      return null;
    }
    const answer = s.core.botFence.resolve();
    return answer instanceof Promise
      ? answer.then((a) => settleFence(s, a))
      : settleFence(s, answer);
  },
};

/** The gate-off and gate-on sentences of BotNotAllowed (SPEC "Gate and fences"). */
export function botNotAllowed(bot: string, gateOn: boolean): Refusal {
  return refusal(
    'BotNotAllowed',
    gateOn
      ? `Bot ${bot} belongs to another workspace`
      : `Bot ${bot} is not one this deployment may use`,
  );
}

/** Step 19: 403 AuthTenantForbidden for an empty session set, else 403 BotNotAllowed. */
export const botsBelong: Step<S> = {
  step: 19,
  check: 'every named bot belongs to the caller',
  run(s) {
    const fence = s.fence;
    if (s.bots.size === 0 || fence === undefined || fence === 'any' || fence === 'unavailable') {
      return null;
    }
    const gateOn = s.core.config.auth.state === 'on';
    if (gateOn && fence.size === 0) {
      return refusal('AuthTenantForbidden', 'This account has no bot yet; call provision first');
    }
    for (const bot of s.bots) if (!fence.has(bot)) return botNotAllowed(bot, gateOn);
    return null;
  },
};

/**
 * Step 20: no named resource is known to belong to another bot (strict: and is
 * known). "Another bot" is one outside the bots the request names, or, when it
 * names none, outside the caller's bot set. With the shared store on, ids
 * memory does not know are asked of the store first (2 s deadline; an
 * unresponsive store leaves the decision to memory), and the named ids whose
 * binding memory holds are queued for writing, refused or not.
 */
export const resourcesBelong: Step<S> = {
  step: 20,
  check: 'every named resource is not known to belong to another bot (strict: and is known)',
  run(s) {
    if (!namesResources(s)) return null;
    const store = s.core.resourceStore;
    if (!store) return checkResources(s);
    const ids = s.analyses.flatMap((a) => a.resources.map((r) => r.id));
    const decide = () => {
      const refused = checkResources(s);
      store.named(ids);
      return refused;
    };
    const asking = store.lookup(ids);
    return asking ? asking.then(decide) : decide();
  },
};

/** Step 20's decision over what memory knows (after any store lookup). */
function checkResources(s: S): Refusal | null {
  const owners = s.bots.size > 0
    ? s.bots
    : s.fence === undefined || s.fence === 'any' || s.fence === 'unavailable'
    ? null
    : s.fence;
  for (const a of s.analyses) {
    const refused = s.core.resourceFence.check(a.resources, owners);
    if (refused) return refused;
  }
  return null;
}
