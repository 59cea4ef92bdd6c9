/**
 * What upstream answers teach the resource fence (SPEC "Resource binding states": an upstream
 * answer to a request that named exactly one bot binds each id it carries to that bot, the bot's
 * own id and the ids the request carried skipped, at most 5,000 ids read per answer): a GraphQL
 * answer read whole, a subscription's events one by one, and a bot upload's answer as it is piped.
 * The shared store is told what was bound. The routes (graphql, socket, rest) call these; they sit
 * here, below the routes, so no route imports another.
 */
import type { GraphqlState } from './graphql_state.ts';
import { idsInAnswer } from '../graphql/mod.ts';
import { AnswerIdScanner, type AnswerReader } from '../graphql/learn_stream.ts';

/**
 * A request that named exactly one bot teaches the resource fence (SPEC "Resource binding
 * states"); the shared store notes the bindings (written once a caller names the ids).
 */
export function learnFromAnswer(state: GraphqlState, text: string): void {
  if (state.core.resourceFence.mode === 'off' || state.bots.size !== 1) return;
  answerLearner(state)(text);
}

/**
 * {@link learnFromAnswer} for every answer to one request that named exactly one bot (a
 * subscription's next frames): the bot and the ids the request carried are read once, and an
 * answer carrying no id costs its scan only.
 */
export function answerLearner(state: GraphqlState): (text: string) => void {
  const fence = state.core.resourceFence;
  const [bot] = state.bots;
  const carried = new Set(state.analyses.flatMap((a) => a.resources.map((r) => r.id)));
  return (text) => {
    if (fence.mode === 'off') return;
    const ids = idsInAnswer(text);
    if (ids.length === 0) return;
    const learned = fence.learn(bot, ids, carried); // not inside `?.(...)`: it must always run
    state.core.resourceStore?.learned(bot, learned);
  };
}

/**
 * What a bot-scoped upload's answer teaches the resource fence (SPEC "Resource binding states": an
 * upstream answer to a request that named exactly one bot binds each id it carries to that bot, at
 * most 5,000 ids read per answer): the ids are read as the answer is piped, and learned once it
 * was read whole. The ids the request carried (its forwarded query, `search`) are skipped, as the
 * bot's own id is by the fence. Undefined when there is nothing to learn for.
 */
export function uploadAnswerLearner(
  state: GraphqlState,
  search: string,
): AnswerReader | undefined {
  const fence = state.core.resourceFence;
  if (fence.mode === 'off' || state.bots.size !== 1) return undefined;
  const [bot] = state.bots;
  const carried = new Set([...new URLSearchParams(search).values()].map((v) => v.toLowerCase()));
  const scanner = new AnswerIdScanner();
  return {
    push: (chunk) => scanner.push(chunk),
    whole: () => {
      const ids = scanner.ids();
      if (ids.length === 0) return;
      const learned = fence.learn(bot, ids, carried);
      state.core.resourceStore?.learned(bot, learned);
    },
  };
}
