/**
 * The relay part of `deno task demo`: one graphql-transport-ws socket through a host's
 * WS /svc/graphql (SPEC "Route table", WS row; "Events"). It opens the socket (connection_init
 * without a token: the relay puts the master token into its own init upstream), subscribes for
 * bot1 and prints every frame it receives until the subscription completes, then subscribes
 * naming a bot this deployment does not hold: the relay answers an error frame on that id
 * (BotNotAllowed, in-band; SPEC "Order in which a GraphQL body is checked", socket paragraph)
 * and the socket stays open, which a last subscribe on it shows; the upstream received no
 * subscribe for the foreign bot. Then the socket closes 1000.
 */
import type { Sandbox } from '../sandbox/mod.ts';
import { WORLD_IDS } from '../sandbox/mod.ts';
import { FOREIGN_BOT } from './traffic.ts';

/** The subscription the demo opens (the sandbox streams 3 events, then completes). */
export const DEMO_SUBSCRIPTION =
  'subscription UnseenDialogs($botID: BotID!) { unseenOpenDialogsCountChanged(botID: $botID) }';

/** What the relay demo printed and how many things were not as expected. */
export interface RelayDemo {
  lines: string[];
  problems: number;
}

/** A frame as received, parsed. */
type Frame = { type: string; id?: string; payload?: unknown };

/** One socket whose frames are read in order, with a deadline on each wait. */
class DemoSocket {
  #ws: WebSocket;
  #frames: Frame[] = [];
  #waiting: (() => void) | null = null;
  closed: CloseEvent | null = null;

  constructor(url: string) {
    this.#ws = new WebSocket(url, 'graphql-transport-ws');
    this.#ws.onmessage = (event) => {
      this.#frames.push(JSON.parse(String(event.data)));
      this.#waiting?.();
    };
    this.#ws.onclose = (event) => {
      this.closed = event;
      this.#waiting?.();
    };
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#ws.onopen = () => resolve();
      this.#ws.onerror = () => reject(new Error('the socket could not be opened'));
    });
  }

  send(frame: Frame): void {
    this.#ws.send(JSON.stringify(frame));
  }

  /** The next frame, or null when the socket closed or nothing came within 5 s. */
  async next(): Promise<Frame | null> {
    const deadline = Date.now() + 5000;
    while (this.#frames.length === 0 && !this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.#waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#waiting = null;
    }
    return this.#frames.shift() ?? null;
  }

  get open(): boolean {
    return this.#ws.readyState === WebSocket.OPEN;
  }

  /** Closes 1000 and resolves with the close the socket reported. */
  async close(): Promise<CloseEvent | null> {
    if (this.closed) return this.closed;
    const done = new Promise<void>((resolve) =>
      this.#ws.addEventListener('close', () => resolve())
    );
    this.#ws.close(1000, 'demo done');
    await done;
    return this.closed;
  }
}

const subscribe = (id: string, botID: string): Frame => ({
  id,
  type: 'subscribe',
  payload: { query: DEMO_SUBSCRIPTION, variables: { botID } },
});

/** Reads the frames of subscription `id` until it completes or errs; each printed. */
async function readSubscription(
  socket: DemoSocket,
  id: string,
  say: (line: string) => void,
): Promise<Frame[]> {
  const seen: Frame[] = [];
  for (;;) {
    const frame = await socket.next();
    if (!frame) return seen;
    seen.push(frame);
    const payload = frame.payload === undefined ? '' : ` ${JSON.stringify(frame.payload)}`;
    say(`relay: <- ${frame.type}${frame.id === undefined ? '' : ` ${frame.id}`}${payload}`);
    if (frame.id === id && (frame.type === 'complete' || frame.type === 'error')) return seen;
  }
}

/** Runs the relay demo through the host at `hostUrl` (http://…). */
export async function relayDemo(hostUrl: string, sandbox: Sandbox): Promise<RelayDemo> {
  const lines: string[] = [];
  const say = (line: string) => lines.push(line);
  let problems = 0;
  const wrong = (what: string) => {
    problems++;
    say(`relay: WRONG: ${what}`);
  };
  const url = `${hostUrl.replace(/^http/, 'ws')}/svc/graphql`;
  const socketsBefore = sandbox.sockets.length;
  const socket = new DemoSocket(url);
  try {
    await socket.opened();
    say(`relay: socket open at ${url}; -> connection_init (no token)`);
    socket.send({ type: 'connection_init', payload: {} });
    const ack = await socket.next();
    say(`relay: <- ${ack?.type ?? 'nothing'}`);
    if (ack?.type !== 'connection_ack') wrong('no connection_ack');

    say('relay: -> subscribe 1 (bot1, a bot this deployment holds)');
    socket.send(subscribe('1', WORLD_IDS.bot1));
    const own = await readSubscription(socket, '1', say);
    const nexts = own.filter((f) => f.type === 'next').length;
    if (nexts === 0 || own.at(-1)?.type !== 'complete') wrong('bot1 stream not relayed whole');

    say('relay: -> subscribe 2 (a bot this deployment does not hold)');
    socket.send(subscribe('2', FOREIGN_BOT));
    const refused = await readSubscription(socket, '2', say);
    const code = (refused.at(-1)?.payload as { extensions?: { code?: string } }[] | undefined)
      ?.[0]?.extensions?.code;
    const upstream = sandbox.sockets.slice(socketsBefore).flatMap((s) => s.subscribes);
    const reached = upstream.some((s) => JSON.stringify(s).includes(FOREIGN_BOT));
    say(
      `relay: subscribe 2 refused in-band: ${code ?? 'no code'}; socket ` +
        `${socket.open ? 'still open' : 'closed'}; upstream received ` +
        `${reached ? 'the foreign subscribe' : 'nothing for it'}`,
    );
    if (code !== 'BotNotAllowed' || !socket.open || reached) wrong('foreign bot not refused');

    say('relay: -> subscribe 3 (bot1 again, same socket)');
    socket.send(subscribe('3', WORLD_IDS.bot1));
    const again = await readSubscription(socket, '3', say);
    if (again.at(-1)?.type !== 'complete') wrong('the socket did not serve after the refusal');
  } catch (error) {
    wrong(error instanceof Error ? error.message : String(error));
  } finally {
    const closed = await socket.close();
    say(`relay: socket closed ${closed?.code ?? '?'}`);
  }
  return { lines, problems };
}
