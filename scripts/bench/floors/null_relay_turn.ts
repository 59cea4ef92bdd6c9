/**
 * The relay floor with the Deno host's legs (turn_relay.mjs: node:http, `ws` both ends, one write
 * per turn toward the browser), on Deno with src/ws/turn_batch.ts itself.
 *
 * `deno run --allow-net --allow-env --allow-read scripts/bench/floors/null_relay_turn.ts`
 * with UPSTREAM, MODE, HOST (127.0.0.1) and PORT (0); prints `null relay listening on <url>`.
 */
import { TurnBatch } from '../../../src/ws/turn_batch.ts';
import { serveTurnRelay } from './turn_relay.mjs';

serveTurnRelay(TurnBatch);
Deno.addSignalListener('SIGTERM', () => Deno.exit(0));
