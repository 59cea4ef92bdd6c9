/**
 * docs/clients.md "A WebSocket on Node 20", run under `node` (the machine's Node 20) against the
 * gateway on both hosts with the sandbox upstream (tests/clients/node20_child.mjs, with the
 * packages deno.json pins): Node 20 has no global WebSocket; graphql-ws's createClient without
 * `webSocketImpl` throws at once; with `ws` it runs a subscription and reads a refusal's code, and
 * so does Apollo Client's GraphQLWsLink over it; Apollo's link, on a socket that cannot connect,
 * throws a ReferenceError outside any handler unless the global WebSocket is set, and reports
 * "Socket closed" once it is. On a Node that has the global (22+), only the runs with `ws` are
 * checked.
 */
import assert from 'node:assert/strict';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';
import { FOREIGN_BOT, socketUrl } from './helpers.ts';

const CHILD = new URL('./node20_child.mjs', import.meta.url).pathname;

/** What the child saw (see node20_child.mjs). */
interface Seen {
  node: string;
  globalWebSocket: string;
  withoutImpl: string;
  graphqlWsEvents: number;
  graphqlWsRefusal: string;
  failedWithoutGlobal?: string;
  failedWithGlobal: string;
  apolloEvents: number;
  apolloRefusal: string;
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] graphql-ws and Apollo's socket link under Node with ws`, async () => {
    await withGateway(kind, {}, async ({ gateway }) => {
      const run = await new Deno.Command('node', {
        args: [CHILD, socketUrl(gateway.url), WORLD_IDS.bot1, FOREIGN_BOT],
        stdout: 'piped',
        stderr: 'piped',
      }).output();
      const stderr = new TextDecoder().decode(run.stderr);
      assert.ok(run.success, stderr);
      const seen: Seen = JSON.parse(
        new TextDecoder().decode(run.stdout).trim().split('\n').at(-1)!,
      );
      assert.equal(seen.graphqlWsEvents, 3);
      assert.equal(seen.graphqlWsRefusal, 'BotNotAllowed');
      assert.equal(seen.apolloEvents, 3);
      assert.equal(seen.apolloRefusal, 'BotNotAllowed');
      assert.equal(seen.failedWithGlobal, 'error Socket closed');
      if (seen.globalWebSocket === 'undefined') {
        assert.match(seen.node, /^v20\./);
        assert.match(seen.withoutImpl, /WebSocket implementation missing/);
        assert.equal(seen.failedWithoutGlobal, 'uncaught ReferenceError: WebSocket is not defined');
      } else {
        console.log(`SKIPPED: Node ${seen.node} has a global WebSocket; its Node 20 part not run`);
      }
    });
  });
}
