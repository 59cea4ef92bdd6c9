/**
 * The relay floor with the Node host's legs (turn_relay.mjs: node:http, `ws` both ends, one write
 * per turn toward the browser), on Node with the built npm package's src/ws/turn_batch.ts (run
 * `deno task build:npm` first, as for the Node host).
 *
 * `node scripts/bench/floors/null_relay_turn_node.mjs` with UPSTREAM, MODE, HOST (127.0.0.1) and
 * PORT (0); prints `null relay listening on <url>`. Exits on SIGTERM.
 */
import process from 'node:process';
import { TurnBatch } from '../../../npm/esm/src/ws/turn_batch.js';
import { serveTurnRelay } from './turn_relay.mjs';

serveTurnRelay(TurnBatch);
process.on('SIGTERM', () => process.exit(0));
