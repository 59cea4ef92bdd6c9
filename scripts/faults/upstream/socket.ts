/**
 * The upstream's socket faults (docs/operations.md "Faults"; SPEC "Close codes": any upstream close
 * that is not 4000-4999 reaches the browser as 1012, non-fatal), each a Fault of fault.ts run by
 * scripts/faults/run.ts:
 *
 * - the upstream socket closed mid-stream: subscriptions streaming events lose their upstream
 *   socket (the stand-in cuts the piped connections): each subscriber gets close 1012, and a
 *   new subscription right after works;
 * - the upstream restarted: it goes down (listener closed, every connection cut) and comes back
 *   on the same port: subscribers get 1012, calls while it is down 504 ProxyUpstreamUnavailable,
 *   and once it is back new subscriptions and calls work.
 */
import type { Client } from 'graphql-ws';
import {
  BOOKINGS,
  disposeQuietly,
  FAULT_QUERY,
  graphql,
  socketClient,
  subscribeOnce,
} from '../traffic.ts';
import { settles } from '../harness.ts';
import { defaultSwitches, WORLD_IDS } from '../../sandbox/mod.ts';
import type { Fault, FaultHost, FaultRunOptions } from '../fault.ts';
import { type FaultScenario, type FaultWorld, runFault } from '../run.ts';

/** Subscriptions streaming at once per round. */
const STREAMING = 4;
/** The sandbox streams events without end while a round runs. */
const ENDLESS = { count: 1_000_000, tickMs: 50, complete: false };

/** A subscription that has received its first event; `ended` labels how it ended. */
interface Streaming {
  client: Client;
  ended: Promise<string>;
}

/** Starts a subscription on its own socket; resolves once its first event arrived. */
async function streaming(gateway: string): Promise<Streaming> {
  const client = socketClient(gateway);
  const first = Promise.withResolvers<void>();
  const ended = new Promise<string>((resolve) => {
    client.subscribe({ query: BOOKINGS, variables: { botID: WORLD_IDS.bot1 } }, {
      next: () => first.resolve(),
      error: (error) => {
        const code = (error as CloseEvent)?.code;
        resolve(typeof code === 'number' ? `close ${code}` : `error ${String(error).slice(0, 60)}`);
        first.resolve();
      },
      complete: () => (resolve('completed'), first.resolve()),
    });
  });
  await first.promise;
  return { client, ended };
}

/** Opens STREAMING subscriptions, runs `cut`, labels each end 'subscriber <label>'. */
async function cutRound(world: FaultWorld, cut: () => Promise<void>): Promise<void> {
  world.sandbox.switches.stream = { ...ENDLESS };
  const subs = await Promise.all(
    Array.from({ length: STREAMING }, () => streaming(world.gateway.url)),
  );
  await cut();
  const ends = await Promise.all(subs.map((s) => s.ended));
  for (const end of ends) {
    world.tally[`subscriber ${end}`] = (world.tally[`subscriber ${end}`] ?? 0) + 1;
  }
  await Promise.all(subs.map((s) => disposeQuietly(s.client)));
  world.sandbox.switches.stream = defaultSwitches().stream;
}

/** A fresh subscription and a call once the upstream is whole again, labelled 'after: <label>'. */
async function afterRound(world: FaultWorld): Promise<void> {
  const client = socketClient(world.gateway.url);
  const labels = await Promise.all([
    subscribeOnce(client),
    graphql(world.gateway.url, { query: FAULT_QUERY }),
  ]);
  await disposeQuietly(client);
  for (const label of labels) {
    world.tally[`after: ${label}`] = (world.tally[`after: ${label}`] ?? 0) + 1;
  }
}

/** Runs rounds of `round` until `world.until`. */
async function rounds(world: FaultWorld, round: () => Promise<void>): Promise<void> {
  do await round(); while (Date.now() < world.until);
}

function fault(name: string, scenario: FaultScenario): Fault {
  return {
    name,
    hosts: ['deno', 'node'],
    run: (host: FaultHost, options: FaultRunOptions) => runFault(name, host, options, scenario),
  };
}

/** Ordinary traffic's answers while the upstream socket is cut or the upstream is down. */
const CUT_OTHERS = ['close 1012', '504 ProxyUpstreamUnavailable', '503 ProxyFenceUnavailable'];

/** The socket faults of the upstream. */
export const upstreamSocketFaults: Fault[] = [
  fault('upstream: socket closed mid-stream', {
    expected: ['subscriber close 1012', 'after: ok'],
    others: CUT_OTHERS,
    drive: (world) =>
      rounds(world, async () => {
        await cutRound(world, async () => {
          world.standIn.cutPiped();
          await Promise.resolve();
        });
        await afterRound(world);
      }),
  }),
  fault('upstream: restarted', {
    expected: [
      'subscriber close 1012',
      'while down: 504 ProxyUpstreamUnavailable',
      'after: ok',
    ],
    others: [...CUT_OTHERS, 'close 1013', 'close 1011'],
    drive: (world) =>
      rounds(world, async () => {
        await cutRound(world, async () => {
          await world.standIn.down();
          const down = await graphql(world.gateway.url, { query: FAULT_QUERY });
          world.tally[`while down: ${down}`] = (world.tally[`while down: ${down}`] ?? 0) + 1;
          world.standIn.up();
        });
        // the gateway's pooled connections to the old process are gone: the next calls reconnect
        await settles(
          () => graphql(world.gateway.url, { query: FAULT_QUERY }),
          (label) => label === 'ok',
          5_000,
        );
        await afterRound(world);
      }),
  }),
];
