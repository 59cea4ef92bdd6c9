/**
 * The upstream's HTTP faults (docs/operations.md "Faults"), each a Fault of fault.ts run by
 * scripts/faults/run.ts: the gateway's own calls (operation `Fault`, upload `fileType=fault`) meet the
 * fault at the stand-in while ordinary traffic goes through to the sandbox. Deadlines are short
 * (options timeoutMs, slowTimeoutMs) so a run takes seconds; the answer-size bound is lowered to 1
 * MiB for the same reason (UPSTREAM_ANSWER_MAX_BYTES).
 */
import type { Fault, FaultHost, FaultRunOptions } from '../fault.ts';
import { type FaultScenario, repeat, runFault } from '../run.ts';
import { FAULT_QUERY, FAULT_UPLOAD, graphql, upload } from '../traffic.ts';
import type { StandInMode } from './stand_in.ts';
import { WORLD_IDS } from '../../sandbox/mod.ts';

/** The short deadlines of these faults (ms). */
export const FAULT_TIMEOUT_MS = 800;
export const FAULT_SLOW_TIMEOUT_MS = 2_400;
/** The lowered answer-size bound (bytes). */
export const FAULT_ANSWER_BYTES = 1024 * 1024;
const UNAVAILABLE = '504 ProxyUpstreamUnavailable';
const TOO_LARGE = '502 UpstreamAnswerTooLarge';
/**
 * What ordinary traffic gets when no upstream can be reached at all: 504 (the forward), 503
 * ProxyFenceUnavailable (the bot fence cannot ask, SPEC "Errors"), close 1012 / 1013 (the relay).
 */
const UPSTREAM_DOWN_OTHERS = [UNAVAILABLE, '503 ProxyFenceUnavailable', 'close 1012', 'close 1013'];

/** A slow publish field (SPEC step 21) in an operation named `Fault`. */
const SLOW_FAULT = 'mutation Fault($botID: BotID!, $input: InstagramPublishImageInput!) ' +
  '{ instagramAccountPublishImage(botID: $botID, input: $input) { id } }';

const faultPost = (gateway: string) => graphql(gateway, { query: FAULT_QUERY });

/** A fault whose calls meet the stand-in in `mode`: GraphQL POSTs (and uploads when `uploads`). */
function modeScenario(
  mode: StandInMode,
  expected: readonly string[],
  extra: Partial<FaultScenario> & { uploads?: boolean } = {},
): FaultScenario {
  return {
    options: { timeoutMs: FAULT_TIMEOUT_MS, slowTimeoutMs: FAULT_SLOW_TIMEOUT_MS },
    env: { UPSTREAM_ANSWER_MAX_BYTES: String(FAULT_ANSWER_BYTES) },
    expected,
    ...extra,
    async drive(world) {
      world.standIn.mode = mode;
      await Promise.all([
        repeat(world.until, world.tally, () => faultPost(world.gateway.url), 3),
        extra.uploads
          ? repeat(world.until, world.tally, () => upload(world.gateway.url, FAULT_UPLOAD))
          : null,
      ]);
    },
  };
}

function fault(name: string, scenario: FaultScenario): Fault {
  return {
    name,
    hosts: ['deno', 'node'],
    run: (host: FaultHost, options: FaultRunOptions) => runFault(name, host, options, scenario),
  };
}

/** Every HTTP fault of the upstream. */
export const upstreamHttpFaults: Fault[] = [
  fault('upstream: connection refused', {
    upstream: () => `http://127.0.0.1:${closedPort()}`,
    warm: false,
    expected: [UNAVAILABLE],
    // nothing reaches any upstream: everyone gets the same answer, promptly
    others: UPSTREAM_DOWN_OTHERS,
    drive: (world) => repeat(world.until, world.tally, () => faultPost(world.gateway.url), 3),
  }),
  fault('upstream: unresolvable host name', {
    upstream: () => 'http://upstream.invalid',
    warm: false,
    expected: [UNAVAILABLE],
    others: UPSTREAM_DOWN_OTHERS,
    drive: (world) => repeat(world.until, world.tally, () => faultPost(world.gateway.url), 3),
  }),
  fault(
    'upstream: accepted, never answered',
    modeScenario({ kind: 'stall' }, [UNAVAILABLE], { uploads: true }),
  ),
  fault(
    'upstream: answers just under the deadline',
    modeScenario({ kind: 'delay', ms: FAULT_TIMEOUT_MS / 2 }, ['ok'], { uploads: true }),
  ),
  fault(
    'upstream: answers just over the deadline',
    modeScenario({ kind: 'delay', ms: FAULT_TIMEOUT_MS * 1.5 }, [UNAVAILABLE], { uploads: true }),
  ),
  fault('upstream: slow publish field within slowTimeoutMs, past timeoutMs', {
    ...modeScenario({ kind: 'delay', ms: FAULT_TIMEOUT_MS * 1.5 }, ['slow ok', UNAVAILABLE]),
    async drive(world) {
      world.standIn.mode = { kind: 'delay', ms: FAULT_TIMEOUT_MS * 1.5 };
      const input = { imageURL: 'https://files.example/a.jpg' };
      await Promise.all([
        repeat(world.until, world.tally, async () => {
          const label = await graphql(world.gateway.url, {
            query: SLOW_FAULT,
            variables: { botID: WORLD_IDS.bot1, input },
          });
          return label === 'ok' ? 'slow ok' : `slow ${label}`;
        }),
        // the same delay on an ordinary field is past timeoutMs
        repeat(world.until, world.tally, () => faultPost(world.gateway.url)),
      ]);
    },
  }),
  fault(
    'upstream: reset mid-answer',
    // a piped upload answer cut before its head went out (Node): the caller's connection is reset
    modeScenario({ kind: 'reset' }, [UNAVAILABLE, 'cut 200', 'error TypeError'], {
      required: [UNAVAILABLE],
      uploads: true,
    }),
  ),
  fault('upstream: answer not JSON', modeScenario({ kind: 'notJson' }, ['200 not JSON'])),
  fault(
    'upstream: answer over the size bound (declared)',
    modeScenario({ kind: 'large', bytes: FAULT_ANSWER_BYTES * 1.5, declared: true }, [
      TOO_LARGE,
    ], { uploads: true }),
  ),
  fault(
    'upstream: answer over the size bound (chunked)',
    modeScenario({ kind: 'large', bytes: FAULT_ANSWER_BYTES * 1.5, declared: false }, [
      TOO_LARGE,
      'cut 200',
    ], { required: [TOO_LARGE], uploads: true }),
  ),
  fault(
    'upstream: large answer within the size bound',
    modeScenario({ kind: 'large', bytes: FAULT_ANSWER_BYTES / 2, declared: false }, ['ok'], {
      uploads: true,
    }),
  ),
];

/** A loopback port nothing listens on (bound, then released). */
function closedPort(): number {
  const listener = Deno.listen({ hostname: '127.0.0.1', port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
