/**
 * The fixed-answer upstream of the bench's `targets` scenario: answers every request (any path,
 * any method) 200 with one small fixed JSON body and executes nothing, so what is measured
 * through a gateway is the gateway's own cost. The body carries both shapes the gateway reads:
 * `data.bot` (the bench document's answer) and `data.currentUser.workspaces` (the bot fence's
 * SvcWorkspaceBots ask), naming the sandbox's bot1, so the request-time bot fence admits bot1.
 *
 * Run as its own process: `deno run --allow-net --allow-env scripts/bench/fixed_upstream.ts`;
 * HOST (127.0.0.1) and PORT (0: a free port); prints its URL as the first line.
 */
import { WORLD_IDS } from '../sandbox/world.ts';

/** The one answer, as bytes (content-type application/json). */
export function fixedAnswer(): Uint8Array<ArrayBuffer> {
  const bot = WORLD_IDS.bot1;
  return new TextEncoder().encode(JSON.stringify({
    data: {
      bot: { id: bot, name: 'Bench bot' },
      currentUser: { id: 'bench-user', workspaces: [{ id: 'bench-ws', bots: [{ id: bot }] }] },
    },
  }));
}

if (import.meta.main) {
  const body = fixedAnswer();
  const headers = { 'content-type': 'application/json' };
  Deno.serve({
    hostname: Deno.env.get('HOST') ?? '127.0.0.1',
    port: Number(Deno.env.get('PORT') ?? '0'),
    onListen: ({ hostname, port }) => console.log(`http://${hostname}:${port}`),
  }, async (request) => {
    await request.arrayBuffer();
    return new Response(body, { headers });
  });
  Deno.addSignalListener('SIGTERM', () => Deno.exit(0));
}
