/**
 * The sandbox's socket side: WebSocket `/graphql`, subprotocol graphql-transport-ws, served by
 * graphql-ws's own `makeServer` over the `ws` package on the node:http server.
 *
 * A thin adapter (as graphql-ws's `use/ws`) sits between `ws` and `makeServer` so the sandbox can
 * record every frame and apply the socket switches before the protocol server sees a frame.
 * connection_init must carry `{authToken: 'Bearer <token>'}`, else close 4403 Forbidden.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError } from 'graphql';
import { makeServer } from 'graphql-ws';
import { type WebSocket, WebSocketServer } from 'ws';
import { socketExecutionArgs } from './execute.ts';
import type { ExecContext } from './mocks.ts';
import { flattenHeaders, type ReceivedSocket } from './record.ts';
import { operationInfo, upstreamSchema } from './schema.ts';
import { delayFor, matches } from './switches.ts';

const PROTOCOL = 'graphql-transport-ws';

/** What the socket side needs from the sandbox instance. */
export interface SocketDeps {
  ctx: ExecContext;
  /** The accepted token (without 'Bearer '). */
  token: string;
  sockets: ReceivedSocket[];
  nextSeq(): number;
  sleep(ms: number): Promise<void>;
}

/** Control over the open sockets. */
export interface SocketControl {
  /** Closes every open socket with `code` and `reason`; returns how many it closed. */
  closeAll(code: number, reason: string): number;
  /** Terminates every socket at once (sandbox shutdown). */
  terminateAll(): void;
}

interface Extra {
  record: ReceivedSocket;
}

type Frame = { type?: unknown; id?: unknown; payload?: unknown } | null;

function parseFrame(text: string): Frame {
  try {
    const value = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : null;
  } catch {
    return null;
  }
}

function protocolServer(deps: SocketDeps) {
  const { switches } = deps.ctx;
  return makeServer<Record<string, unknown> | undefined, Extra>({
    schema: upstreamSchema(),
    onConnect: (ctx) => {
      const ok = ctx.connectionParams?.authToken === `Bearer ${deps.token}`;
      ctx.extra.record.authorized = ok;
      return ok;
    },
    onSubscribe: async (_ctx, _id, payload) => {
      const info = operationInfo(payload.query, payload.operationName);
      const subject = { path: '/graphql', operations: [info] };
      const delay = delayFor(switches, subject);
      if (delay > 0) await deps.sleep(delay);
      const rule = switches.errors;
      if (rule && matches(rule.match, subject)) {
        return rule.errors.map((e) =>
          new GraphQLError(e.message, { path: e.path, extensions: e.extensions })
        );
      }
      return socketExecutionArgs(payload, deps.ctx);
    },
  });
}

function oversizedFrame(id: string, bytes: number): string {
  const head = JSON.stringify({ id, type: 'next', payload: { data: { padding: '' } } });
  return head.replace(
    '"padding":""',
    `"padding":"${'x'.repeat(Math.max(0, bytes - head.length))}"`,
  );
}

type OpenSockets = Map<WebSocket, (code: number, reason: string) => void>;

function accept(ws: WebSocket, req: IncomingMessage, deps: SocketDeps, open: OpenSockets) {
  const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
  const record: ReceivedSocket = {
    seq: deps.nextSeq(),
    path: url.pathname,
    search: url.search,
    headers: flattenHeaders(req.headers),
    protocol: ws.protocol,
    initPayload: undefined,
    authorized: null,
    frames: [],
    subscribes: [],
    sent: [],
    closed: null,
  };
  deps.sockets.push(record);
  const sw = () => deps.ctx.switches.ws;
  let by: 'client' | 'sandbox' = 'client';
  const close = (code: number, reason: string) => {
    if (ws.readyState !== ws.OPEN) return;
    by = 'sandbox';
    ws.close(code, reason);
  };
  open.set(ws, close);
  const send = (text: string, shown = text) =>
    new Promise<void>((resolve) => {
      record.sent.push(shown);
      if (ws.readyState !== ws.OPEN) return resolve();
      ws.send(text, () => resolve());
    });
  let deliver: ((data: string) => Promise<void>) | null = null;
  const closed = protocolServer(deps).opened({
    protocol: ws.protocol,
    send: (text) => send(text),
    close,
    onMessage: (cb) => (deliver = cb),
  }, { record });

  const intercept = async (text: string) => {
    const frame = parseFrame(text);
    if (frame?.type === 'connection_init') {
      record.initPayload = frame.payload;
      const next = sw().closeNext;
      if (next?.on === 'init') {
        sw().closeNext = null;
        return close(next.code, next.reason);
      }
      if (sw().refuseInit) return close(4403, 'Forbidden');
      if (sw().ackDelayMs > 0) await deps.sleep(sw().ackDelayMs);
    }
    if (frame?.type === 'ping' && sw().ignorePings) return;
    if (frame?.type === 'subscribe') {
      record.subscribes.push({ id: String(frame.id), payload: (frame.payload ?? {}) as never });
      const next = sw().closeNext;
      if (next?.on === 'subscribe') {
        sw().closeNext = null;
        return close(next.code, next.reason);
      }
      const oversized = sw().oversizedFrameBytes;
      if (oversized > 0 && typeof frame.id === 'string') {
        const big = oversizedFrame(frame.id, oversized);
        await send(big, `<oversized ${big.length} bytes>`);
      }
    }
    try {
      await deliver?.(text);
    } catch {
      close(4500, 'Internal server error');
    }
  };

  ws.on('message', (data) => {
    const text = String(data);
    record.frames.push(text);
    void intercept(text);
  });
  ws.on('ping', (data) => {
    if (!sw().ignorePings && ws.readyState === ws.OPEN) ws.pong(data);
  });
  ws.on('error', () => {});
  ws.on('close', (code, reason) => {
    record.closed = { code, reason: String(reason), by };
    open.delete(ws);
    void closed(code, String(reason));
  });
}

/** Serves WebSocket upgrades of `server` on `/graphql`; other paths get a plain 404. */
export function attachSockets(server: Server, deps: SocketDeps): SocketControl {
  const open: OpenSockets = new Map();
  const wss = new WebSocketServer({
    noServer: true,
    autoPong: false,
    handleProtocols: (offered: Set<string>) => (offered.has(PROTOCOL) ? PROTOCOL : false),
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Uint8Array) => {
    if (new URL(req.url ?? '/', 'http://sandbox.invalid').pathname !== '/graphql') {
      socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head as never, (ws) => accept(ws, req, deps, open));
  });
  return {
    closeAll(code, reason) {
      let count = 0;
      for (const [ws, close] of open) {
        if (ws.readyState !== ws.OPEN) continue;
        close(code, reason);
        count += 1;
      }
      return count;
    },
    terminateAll() {
      for (const ws of open.keys()) ws.terminate();
      open.clear();
      wss.close();
    },
  };
}
