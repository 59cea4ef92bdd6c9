/**
 * The socket route teaches the resource fence from each relayed next frame, end to end on both
 * hosts, gate off (SPEC "Resource binding states": an answer to a request that named exactly one
 * bot binds each id it carries to that bot; the relay's `learn` seam, src/routes/socket.ts):
 * after a subscription for bot1 streamed its events, a POST naming one of their ids for bot2 is
 * refused ResourceNotAllowed and reaches nothing upstream.
 */
import assert from 'node:assert/strict';
import { WORLD_IDS } from '../../../scripts/sandbox/mod.ts';
import { assertRefusal, forwarded, postGraphql } from '../../helpers/assertions.ts';
import { HOSTS } from '../../helpers/gateway.ts';
import { withGateway } from '../../helpers/setup.ts';

const MESSAGES = 'subscription M($botID: BotID!, $c: ConversationID!) ' +
  '{ messageAdded(botID: $botID, conversationID: $c) { id clientId sender { __typename } } }';
const CONVERSATION = 'c0'.repeat(12);
const FLOW =
  'query F($botID: BotID!, $flowID: FlowID!) { bot(id: $botID) { flow(flowID: $flowID) { id } } }';

/** Subscribes once on a fresh socket; resolves with the next frames' payload texts. */
function nexts(url: string, query: string, botID: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/svc/graphql`, 'graphql-transport-ws');
    const texts: string[] = [];
    ws.onopen = () => ws.send(JSON.stringify({ type: 'connection_init', payload: {} }));
    ws.onmessage = (event) => {
      const frame = JSON.parse(String(event.data));
      if (frame.type === 'connection_ack') {
        const variables = { botID, c: CONVERSATION };
        ws.send(JSON.stringify({ id: 's', type: 'subscribe', payload: { query, variables } }));
      } else if (frame.type === 'next') texts.push(JSON.stringify(frame.payload));
      else if (frame.type === 'complete') ws.close(1000);
      else reject(new Error(`unexpected frame ${event.data}`));
    };
    ws.onclose = () => resolve(texts);
  });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] a subscription's next frames teach the resource fence`, async () => {
    await withGateway(
      kind,
      { env: { SVC_RESOURCE_FENCE: 'bound' } },
      async ({ sandbox, gateway }) => {
        sandbox.switches.stream = { count: 2, tickMs: 5, complete: true };
        const texts = await nexts(gateway.url, MESSAGES, WORLD_IDS.bot1);
        assert.equal(texts.length, 2);
        const ids = texts.join('').match(/"[0-9a-f]{24}"/g)?.map((q) => q.slice(1, -1)) ?? [];
        const taught = ids.find((id) => id !== WORLD_IDS.bot1 && id !== CONVERSATION);
        assert.ok(taught, `the events carry a resource id: ${texts.join(' ')}`);
        const before = forwarded(sandbox).length;
        await assertRefusal(
          await postGraphql(gateway.url, {
            query: FLOW,
            variables: { botID: WORLD_IDS.bot2, flowID: taught },
          }),
          403,
          'ResourceNotAllowed',
        );
        assert.equal(forwarded(sandbox).length, before, 'nothing reached the upstream');
      },
    );
  });
}
