/**
 * The page side of the browser tests, bundled from the emitted npm package: the client module
 * on `globalThis.svc`, and `globalThis.svcTest`, small drivers that keep clients and sockets in
 * the page and hand back plain data (thrown values described by `describeError`).
 */
import * as svc from 'svc-gateway/client';

/** A thrown value as plain data. */
export interface ErrorFacts {
  name: string;
  message: string;
  isSvcApiError: boolean;
  /** Constructor names from the class up to Error. */
  classChain: string[];
  status?: number;
  code?: string | null;
  reason?: string;
  bodySnippet?: string;
  traceId?: string | null;
  isPermissionDenied?: boolean;
  errorCount?: number;
  retryAfterMs?: number | null;
  hasCause?: boolean;
}

/** What `svcTest.call` resolves with. */
export type CallResult = { ok: true; data: unknown } | { ok: false; error: ErrorFacts };

/** Options the test gives a page client (functions stay in the page). */
export interface PageClientOptions {
  url?: string;
  retry?: svc.SvcRetryOptions;
  timeoutMs?: number;
}

/** What a page socket saw: events, the end, closes, reconnect signals. */
export interface SocketLog {
  events: unknown[];
  errors: ErrorFacts[];
  completed: number;
  closes: { code: number; reason: string }[];
  connected: number;
  reconnects: number;
}

function describeError(error: unknown): ErrorFacts {
  const e = error as Record<string, unknown> & Error;
  const chain: string[] = [];
  for (
    let p = Object.getPrototypeOf(e);
    p && p !== Object.prototype;
    p = Object.getPrototypeOf(p)
  ) {
    chain.push(p.constructor.name);
  }
  return {
    name: e?.name,
    message: e?.message,
    isSvcApiError: error instanceof svc.SvcApiError,
    classChain: chain,
    status: e.status as number | undefined,
    code: e.code as string | null | undefined,
    reason: e.reason as string | undefined,
    bodySnippet: e.bodySnippet as string | undefined,
    traceId: e.traceId as string | null | undefined,
    isPermissionDenied: e.isPermissionDenied as boolean | undefined,
    errorCount: Array.isArray(e.errors) ? e.errors.length : undefined,
    retryAfterMs: e.retryAfterMs as number | null | undefined,
    hasCause: e.cause !== undefined,
  };
}

const clients = new Map<string, svc.SvcClient>();
type RouteGroups = Record<string, Record<string, (...a: unknown[]) => Promise<unknown>>>;
/** Route helpers built from a page client (its token getter and its session latch). */
const clientRoutes = new Map<string, RouteGroups>();
const sockets = new Map<
  string,
  { client: svc.SvcSocket; log: SocketLog; stops: (() => void)[] }
>();

/** The drivers the tests call through `page.evaluate`. */
const svcTest = {
  /** The session token every page client and socket reads (fresh on each attempt). */
  token: '' as string,
  /** Reasons passed to onSessionError, in order. */
  lapses: [] as string[],
  setToken(token: string) {
    svcTest.token = token;
  },
  makeClient(name: string, options: PageClientOptions = {}) {
    clients.set(
      name,
      svc.createSvcClient({
        ...options,
        getAccessToken: () => svcTest.token,
        onSessionError: (error) => void svcTest.lapses.push(error.reason),
      }),
    );
  },
  async call(
    name: string,
    document: string,
    variables?: Record<string, unknown>,
    options?: svc.SvcRequestOptions,
  ): Promise<CallResult> {
    try {
      return { ok: true, data: await clients.get(name)!.request(document, variables, options) };
    } catch (error) {
      return { ok: false, error: describeError(error) };
    }
  },
  makeSocket(
    name: string,
    options: {
      url?: string;
      retry?: { baseMs?: number; capMs?: number };
      keepAliveMs?: number;
      pingTimeoutMs?: number;
    } = {},
  ) {
    const log: SocketLog = {
      events: [],
      errors: [],
      completed: 0,
      closes: [],
      connected: 0,
      reconnects: 0,
    };
    const client = svc.createSvcSocket({
      ...options,
      getAccessToken: () => svcTest.token,
      onReconnect: () => void log.reconnects++,
    });
    client.on('connected', () => void log.connected++);
    client.on('closed', (event) => {
      const { code, reason } = event as CloseEvent;
      log.closes.push({ code, reason });
    });
    sockets.set(name, { client, log, stops: [] });
  },
  subscribe(name: string, query: string, variables: Record<string, unknown>) {
    const { client, log, stops } = sockets.get(name)!;
    const stop = client.subscribe({ query, variables }, {
      next: (value) => void log.events.push(value),
      error: (error) => void log.errors.push(describeError(svc.socketError(error))),
      complete: () => void log.completed++,
    });
    stops.push(stop);
  },
  /** Ends the latest subscription of socket `name` (the app's unsubscribe). */
  unsubscribeLast(name: string) {
    sockets.get(name)!.stops.pop()?.();
  },
  socketLog(name: string): SocketLog {
    return sockets.get(name)!.log;
  },
  async disposeSocket(name: string) {
    await sockets.get(name)?.client.dispose();
    sockets.delete(name);
  },
  /**
   * Runs one typed route call: `group` 'auth' | 'admin' | 'publishing', `method` one of its
   * calls, `args` its arguments. Plain result, like `call`.
   */
  async route(
    group: 'auth' | 'admin' | 'publishing',
    method: string,
    args: unknown[],
  ): Promise<CallResult> {
    const routes: RouteGroups = {
      auth: svc.createAuthRoutes({ getAccessToken: () => svcTest.token }) as never,
      admin: svc.createAdminRoutes() as never,
      publishing: svc.createPublishingRoutes({ getAccessToken: () => svcTest.token }) as never,
    };
    try {
      return { ok: true, data: await routes[group][method](...args) };
    } catch (error) {
      return { ok: false, error: describeError(error) };
    }
  },
  /**
   * Like `route`, with the helpers built once from the page client `name`
   * (`createAuthRoutes({client})`, ...): they share its onSessionError latch.
   */
  async routeVia(
    name: string,
    group: 'auth' | 'admin' | 'publishing',
    method: string,
    args: unknown[],
  ): Promise<CallResult> {
    if (!clientRoutes.has(name)) {
      const client = clients.get(name)!;
      clientRoutes.set(name, {
        auth: svc.createAuthRoutes({ client }) as never,
        admin: svc.createAdminRoutes({ client }) as never,
        publishing: svc.createPublishingRoutes({ client }) as never,
      });
    }
    try {
      return { ok: true, data: await clientRoutes.get(name)![group][method](...args) };
    } catch (error) {
      return { ok: false, error: describeError(error) };
    }
  },
  /**
   * publishing.uploadMedia of `size` bytes starting with `head` (as `type`); resolves with the
   * answer (or the error) and the progress reports seen.
   */
  async upload(botID: string, head: number[], size: number, type: string) {
    const bytes = new Uint8Array(size);
    bytes.set(head);
    const progress: svc.UploadProgress[] = [];
    const routes = svc.createPublishingRoutes({ getAccessToken: () => svcTest.token });
    try {
      const data = await routes.uploadMedia(botID, new Blob([bytes], { type }), {
        filename: 'photo.jpg',
        onProgress: (p) => void progress.push(p),
      });
      return { result: { ok: true, data } as CallResult, progress };
    } catch (error) {
      return { result: { ok: false, error: describeError(error) } as CallResult, progress };
    }
  },
  describeError,
};

const scope = globalThis as unknown as Record<string, unknown>;
scope.svc = svc;
scope.svcTest = svcTest;
// the tests' page.evaluate callbacks call `pageGlobals()` (page_types.ts), which runs here
scope.pageGlobals = () => scope;
// `document` is the page's (the Deno type check has no DOM library)
const page = scope.document as { getElementById(id: string): { textContent: string } | null };
page.getElementById('ready')!.textContent = 'ready';

export type SvcTest = typeof svcTest;
