/**
 * A fault-injecting HTTP proxy in front of the PostgREST-compatible fixture
 * (tests/fixtures/db/postgrest.ts), so a fault can make the backend unreachable, stalled, slow,
 * failing or mis-shaped for one database function while the others pass, without changing the
 * fixture. The gateway's CLIENT_BACKEND_URL points here.
 *
 * Every RPC is recorded (`calls`: function, arrival and end time in ms since the epoch, the
 * behaviour applied, and whether the caller went away first). Idle keep-alive connections (and
 * connections that never carry a request) are closed after 1 s, so once traffic settles `openConnections()` counts only connections with a
 * request still pending: a gateway that leaves a stalled backend call open shows here.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Buffer } from 'node:buffer';

/** What the proxy does with a call to one function. */
export type Behaviour =
  /** Forward to the fixture and pass its answer back. */
  | { kind: 'pass' }
  /** Never answer; hold the connection until the caller goes away. */
  | { kind: 'stall' }
  /** Cut the connection without an answer (a backend that vanished mid-call). */
  | { kind: 'reset' }
  /** Wait `ms`, then forward (a backend slower than a deadline when `ms` exceeds it). */
  | { kind: 'slow'; ms: number }
  /** Answer `status` with a PostgREST-shaped error body, the database not touched. */
  | { kind: 'status'; status: number }
  /** Answer 200 with `body` as is (application/json), the database not touched. */
  | { kind: 'body'; body: string };

/** One RPC seen by the proxy. */
export interface ProxyCall {
  fn: string;
  /** ms since the epoch when it arrived. */
  at: number;
  /** ms since the epoch when it was answered or the caller went away (null: still open). */
  endedAt: number | null;
  behaviour: Behaviour['kind'];
  /** Status answered (0: none, the caller went away or the connection was cut). */
  status: number;
  /** The request body (JSON text of the named arguments). */
  body: string;
}

/** A running proxy. */
export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: the CLIENT_BACKEND_URL the gateway gets. */
  url: string;
  /** Every RPC in arrival order. */
  calls: ProxyCall[];
  /** Sets the behaviour for `fn` ('*' for every function without its own). */
  set(fn: string, behaviour: Behaviour): void;
  /** Back to passing everything. */
  clear(): void;
  /** Closes the port (connections refused, open ones cut) or listens again on the same port. */
  setUnreachable(on: boolean): Promise<void>;
  /** Connections from callers open right now. */
  openConnections(): number;
  /** Calls of `fn` so far (arrived at the proxy). */
  count(fn: string): number;
  stop(): Promise<void>;
}

const RPC_PREFIX = '/rest/v1/rpc/';
/** Idle keep-alive connections are closed after this long (ms). */
const KEEP_ALIVE_MS = 1_000;
/** Request bodies larger than this are answered 413 (the gateway's RPC bodies are small). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return void req.destroy();
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(null));
    req.on('close', () => resolve(null));
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Forwards one request to `target`; answers its status and body. */
async function forward(
  target: string,
  req: IncomingMessage,
  body: string,
  res: ServerResponse,
  gone: AbortSignal,
): Promise<number> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) {
      headers.set(name, value);
    }
  }
  try {
    const answer = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
      signal: gone,
    });
    const text = await answer.text();
    const type = answer.headers.get('content-type');
    res.writeHead(answer.status, type ? { 'content-type': type } : {});
    res.end(text);
    return answer.status;
  } catch {
    res.destroy();
    return 0;
  }
}

/** Starts the proxy on a free port of 127.0.0.1, in front of `target` (the fixture's url). */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const behaviours = new Map<string, Behaviour>();
  const calls: ProxyCall[] = [];
  const sockets = new Set<Socket>();
  const unused = new WeakMap<Socket, ReturnType<typeof setTimeout>>();
  const behaviourOf = (fn: string): Behaviour =>
    behaviours.get(fn) ?? behaviours.get('*') ?? { kind: 'pass' };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    const fn = path.startsWith(RPC_PREFIX) ? decodeURIComponent(path.slice(RPC_PREFIX.length)) : '';
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const body = await readBody(req);
    const behaviour = behaviourOf(fn);
    const call: ProxyCall = {
      fn,
      at: Date.now(),
      endedAt: null,
      behaviour: behaviour.kind,
      status: 0,
      body: body ?? '',
    };
    calls.push(call);
    res.on('close', () => call.endedAt ??= Date.now());
    if (body === null) return;
    call.status = await apply(behaviour, req, body, res, gone.signal);
    call.endedAt = Date.now();
  };

  const apply = async (
    behaviour: Behaviour,
    req: IncomingMessage,
    body: string,
    res: ServerResponse,
    gone: AbortSignal,
  ): Promise<number> => {
    switch (behaviour.kind) {
      case 'stall':
        await new Promise((resolve) => gone.addEventListener('abort', resolve, { once: true }));
        return 0;
      case 'reset':
        res.destroy();
        return 0;
      case 'slow':
        await Promise.race([
          sleep(behaviour.ms),
          new Promise((resolve) => gone.addEventListener('abort', resolve, { once: true })),
        ]);
        if (gone.aborted) return 0;
        return await forward(target, req, body, res, gone);
      case 'status': {
        const error = { code: 'XX000', details: null, hint: null, message: 'fault proxy' };
        res.writeHead(behaviour.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(error));
        return behaviour.status;
      }
      case 'body':
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(behaviour.body);
        return 200;
      case 'pass':
        return await forward(target, req, body, res, gone);
    }
  };

  const makeServer = (): Server => {
    const server = createServer((req, res) => void handle(req, res));
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      // A connection that never carries a request (a client pool's spare) is idle too.
      const idle = setTimeout(() => socket.destroy(), KEEP_ALIVE_MS);
      unused.set(socket, idle);
      socket.on('close', () => {
        clearTimeout(idle);
        sockets.delete(socket);
      });
    });
    server.on('request', (req: IncomingMessage) => clearTimeout(unused.get(req.socket)));
    return server;
  };
  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
  const close = (server: Server) =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });

  let server: Server | null = makeServer();
  const port = await listen(server, 0);
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    set: (fn, behaviour) => void behaviours.set(fn, behaviour),
    clear: () => behaviours.clear(),
    async setUnreachable(on) {
      if (on && server) {
        const closing = server;
        server = null;
        await close(closing);
      } else if (!on && !server) {
        server = makeServer();
        await listen(server, port);
      }
    },
    openConnections: () => sockets.size,
    count: (fn) => calls.filter((call) => call.fn === fn).length,
    async stop() {
      if (server) await close(server);
      server = null;
    },
  };
}
