/**
 * Run-time switches that make the sandbox misbehave like a real upstream can, so every gateway
 * path can be provoked. Tests mutate `sandbox.switches` directly; `sandbox.reset()` restores
 * `defaultSwitches()` in place.
 */

/**
 * Which requests a rule applies to. Every given property must match; an absent `match` (or an
 * empty one) matches every request the rule can apply to.
 * - `operationName`: the name of the executed operation of a GraphQL entry (from its document).
 * - `rootField`: one of the entry's root field names (fragments flattened, aliases ignored).
 * - `path`: the URL pathname, e.g. `'/graphql'` or `'/api/filestorage/upload/bot'`.
 * A batch matches when any of its entries matches. A request to an upload path has no
 * operation name or root field, so rules naming either never match it.
 */
export interface Match {
  operationName?: string;
  rootField?: string;
  path?: string;
}

/** Delay an answer by `ms` milliseconds (HTTP requests; socket subscribes before executing). */
export interface DelayRule {
  ms: number;
  match?: Match;
}

/**
 * One upstream error entry, shaped as SPEC "Error envelope" describes (all optional except
 * `message`; nested failures under `extensions.errors[]`).
 */
export interface UpstreamError {
  message: string;
  path?: (string | number)[];
  extensions?: {
    code?: string;
    service?: string;
    traceId?: string;
    errors?: { message: string; extensions?: { code?: string } }[];
    [key: string]: unknown;
  };
}

/**
 * Answer GraphQL with this errors envelope instead of executing.
 * HTTP: status 200, body `{data: data ?? null, errors}` (an array of those for a batch).
 * Socket: an `error` frame on the subscribe's id with payload `errors`.
 */
export interface ErrorsRule {
  errors: UpstreamError[];
  data?: unknown;
  match?: Match;
}

/** Answer HTTP requests with `status` and `body` (default `upstream answered <status>`, text/plain). */
export interface StatusRule {
  status: number;
  body?: string;
  contentType?: string;
  match?: Match;
}

/** Close the HTTP connection (TCP) without writing any byte of an answer. */
export interface DropRule {
  match?: Match;
}

/**
 * How subscriptions stream: `count` events (0 or more), one every `tickMs` ms, then `complete`
 * (true: the subscription completes; false: it stays open, silent, until the client completes
 * it or the socket closes). Event payloads are deterministic mocks bound to the bot argument.
 */
export interface StreamSettings {
  count: number;
  tickMs: number;
  complete: boolean;
}

/** One-shot socket close: the next socket reaching `on` is closed with `code` and `reason`. */
export interface CloseNext {
  code: number;
  reason: string;
  /** 'init': on its connection_init (no ack is sent); 'subscribe': on its next subscribe. */
  on: 'init' | 'subscribe';
}

/** Socket switches (WebSocket `/graphql`). */
export interface SocketSwitches {
  /** Close 4403 Forbidden on connection_init whatever the token (the init is still recorded). */
  refuseInit: boolean;
  /** Dead upstream: never answer protocol `ping` frames nor WebSocket control pings. */
  ignorePings: boolean;
  /** 0: off. Else, on each subscribe, first send a `next` frame of at least this many bytes. */
  oversizedFrameBytes: number;
  /** One-shot close of the next socket; cleared once used. */
  closeNext: CloseNext | null;
  /** 0: off. Else connection_ack comes this many ms after connection_init (a slow upstream). */
  ackDelayMs: number;
}

/**
 * The switch set. Order of effect on an HTTP request: record, `delays` (sum of the matching
 * rules), `drop`, `status`, then authorization, then `errors` (GraphQL only), then execution.
 * On a socket subscribe: `ws.closeNext`, `ws.oversizedFrameBytes`, `delays`, `errors`, execution.
 */
export interface SandboxSwitches {
  delays: DelayRule[];
  errors: ErrorsRule | null;
  status: StatusRule | null;
  drop: DropRule | null;
  stream: StreamSettings;
  ws: SocketSwitches;
}

/** The switches of a fresh sandbox: nothing provoked, 3 events every 10 ms then complete. */
export function defaultSwitches(): SandboxSwitches {
  return {
    delays: [],
    errors: null,
    status: null,
    drop: null,
    stream: { count: 3, tickMs: 10, complete: true },
    ws: {
      refuseInit: false,
      ignorePings: false,
      oversizedFrameBytes: 0,
      closeNext: null,
      ackDelayMs: 0,
    },
  };
}

/** What a request is matched on: its path and, for GraphQL, each entry's name and root fields. */
export interface MatchSubject {
  path: string;
  operations: { operationName: string | null; rootFields: string[] }[];
}

/** True when `match` (absent = everything) applies to `subject`. */
export function matches(match: Match | undefined, subject: MatchSubject): boolean {
  if (!match) return true;
  if (match.path !== undefined && match.path !== subject.path) return false;
  if (match.operationName === undefined && match.rootField === undefined) return true;
  return subject.operations.some((op) =>
    (match.operationName === undefined || op.operationName === match.operationName) &&
    (match.rootField === undefined || op.rootFields.includes(match.rootField))
  );
}

/** Total delay in ms of the rules matching `subject`. */
export function delayFor(switches: SandboxSwitches, subject: MatchSubject): number {
  return switches.delays
    .filter((rule) => matches(rule.match, subject))
    .reduce((sum, rule) => sum + Math.max(0, rule.ms), 0);
}

/** The subgraph sentence the real platform puts in an outer error when a subservice fails. */
export function subgraphSentence(service = 'bots'): string {
  return `Failed to fetch from Subgraph '${service}'`;
}

/**
 * Builds the errors a subgraph failure answers with: outer message `Failed to fetch from
 * Subgraph '<service>'`, outer `extensions.code` only if `outerCode` is given, and when
 * `nestedCode` is given one nested entry under `extensions.errors[]` carrying it.
 */
export function subgraphFailure(
  options: { service?: string; outerCode?: string; nestedCode?: string } = {},
): UpstreamError[] {
  const service = options.service ?? 'bots';
  const extensions: NonNullable<UpstreamError['extensions']> = { service };
  if (options.outerCode) extensions.code = options.outerCode;
  if (options.nestedCode) {
    extensions.errors = [{ message: 'Subgraph error', extensions: { code: options.nestedCode } }];
  }
  return [{ message: subgraphSentence(service), extensions }];
}

/** A plain upstream refusal `{message, extensions: {code}}` (e.g. code 'Unauthorized'). */
export function upstreamError(code: string, message = code): UpstreamError[] {
  return [{ message, extensions: { code } }];
}
