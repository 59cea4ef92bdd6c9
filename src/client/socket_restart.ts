/**
 * A graphql-ws Client that outlives the closes graphql-ws 6 gives up on by itself.
 *
 * SPEC "WebSocket close codes" (client-side codes): only 4400, 4401, 4403, 4406, 4409 and 4429
 * are fatal; every other close retries with the socket backoff. graphql-ws 6 throws, before it
 * asks `shouldRetry`, on 4500, 4005, 4004 and every 1xxx code but 1000/1001/1005/1006/1012/
 * 1013/1014 (its `shouldRetryConnectOrThrow` and `isFatalInternalCloseCode`), and hands that
 * close to every live subscription's sink. This wrapper catches such a close on its way to the
 * app's sink: it waits the backoff once for all the subscriptions that shared the socket, makes a
 * fresh graphql-ws client (the old one keeps no connection once it threw), and subscribes each
 * live subscription again with the same sink. The app sees its `closed` and `connected` events
 * (forwarded from every generation) and never the swallowed error.
 */
import type {
  Client,
  Event,
  EventListener,
  FormattedExecutionResult,
  Sink,
  SubscribePayload,
} from 'graphql-ws/client';

/** Every graphql-ws client event, forwarded from each generation to the app's listeners. */
const SOCKET_EVENTS: readonly Event[] = [
  'connecting',
  'opened',
  'connected',
  'ping',
  'pong',
  'message',
  'closed',
  'error',
];

/** Listener functions keyed by event, in the shape of graphql-ws's `on` option. */
export type SocketEventHandlers = { [E in Event]: EventListener<E> };

/** What {@link createRestartingClient} needs from its caller. */
export interface RestartingClientParts {
  /** Makes one graphql-ws client (lazy) whose events go to `forward`. */
  makeClient(forward: SocketEventHandlers): Client;
  /** Whether what a sink received is a close to come back from (not a fatal one). */
  restarts(error: unknown): boolean;
  /** The backoff before the next generation; resolves (never rejects) early when `signal` aborts. */
  wait(signal: AbortSignal): Promise<void>;
}

/** The wrapper: a graphql-ws `Client` whose subscriptions survive the closes `restarts` names. */
export function createRestartingClient(parts: RestartingClientParts): Client {
  const listeners = new Map<Event, ((...args: unknown[]) => void)[]>();
  const emit = (event: Event) => (...args: unknown[]) => {
    for (const listener of [...(listeners.get(event) ?? [])]) listener(...args);
  };
  const forward = Object.fromEntries(
    SOCKET_EVENTS.map((event) => [event, emit(event)]),
  ) as unknown as SocketEventHandlers;
  const disposing = new AbortController();
  let current = parts.makeClient(forward);
  let restarting: Promise<void> | null = null;

  /** The wait every subscription of the `failed` generation shares before subscribing again. */
  function restartAfter(failed: Client): Promise<void> {
    if (failed === current) {
      current = parts.makeClient(forward);
      const waited: Promise<void> = parts.wait(disposing.signal).then(() => {
        if (restarting === waited) restarting = null;
      });
      restarting = waited;
    }
    return restarting ?? Promise.resolve();
  }

  function subscribe<Data, Extensions>(
    payload: SubscribePayload,
    sink: Sink<FormattedExecutionResult<Data, Extensions>>,
  ): () => void {
    let ended = false;
    let stop: (() => void) | null = null;
    const finish = (how: () => void) => {
      if (ended) return;
      ended = true;
      stop = null;
      how();
    };
    const start = () => {
      if (ended) return;
      if (disposing.signal.aborted) return finish(() => sink.complete());
      const client = current;
      stop = client.subscribe<Data, Extensions>(payload, {
        next: (value) => {
          if (!ended) sink.next(value);
        },
        error: (error) => {
          if (ended) return;
          if (!parts.restarts(error)) return finish(() => sink.error(error));
          // disposed: what would have been retried ends the subscription, as graphql-ws does
          if (disposing.signal.aborted) return finish(() => sink.complete());
          stop = null;
          void restartAfter(client).then(start);
        },
        complete: () => finish(() => sink.complete()),
      });
    };
    if (restarting) void restarting.then(start);
    else start();
    return () => {
      const inner = stop;
      finish(() => sink.complete());
      inner?.();
    };
  }

  async function* iterate<Data, Extensions>(
    payload: SubscribePayload,
  ): AsyncGenerator<FormattedExecutionResult<Data, Extensions>, void, undefined> {
    if (restarting) await restarting;
    while (!disposing.signal.aborted) {
      const client = current;
      try {
        return yield* client.iterate<Data, Extensions>(payload);
      } catch (error) {
        if (!parts.restarts(error)) throw error;
        if (disposing.signal.aborted) return;
        await restartAfter(client);
      }
    }
  }

  return {
    on<E extends Event>(event: E, listener: EventListener<E>): () => void {
      const list = listeners.get(event) ?? [];
      listeners.set(event, list);
      const entry = listener as (...args: unknown[]) => void;
      list.push(entry);
      return () => {
        const at = list.indexOf(entry);
        if (at >= 0) list.splice(at, 1);
      };
    },
    subscribe,
    iterate,
    async dispose() {
      disposing.abort();
      await current.dispose();
    },
    terminate() {
      current.terminate();
    },
  };
}
