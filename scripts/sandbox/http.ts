/**
 * The sandbox's HTTP side on a node:http server: `POST /graphql` (single entry or batch) and the
 * REST upload paths. Every request is recorded before any switch acts; then the switches
 * (delays, drop, status), authorization, the errors switch, and execution, in that order.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { runEntry } from './execute.ts';
import type { ExecContext } from './mocks.ts';
import { flattenHeaders, type ReceivedOperation, type ReceivedRequest } from './record.ts';
import { operationInfo } from './schema.ts';
import { delayFor, matches, type MatchSubject } from './switches.ts';
import { answerUpload, UPLOAD_PREFIX } from './uploads.ts';

/** What the HTTP side needs from the sandbox instance. */
export interface HttpDeps {
  ctx: ExecContext;
  /** The accepted token (without 'Bearer '). */
  token: string;
  received: ReceivedRequest[];
  nextSeq(): number;
  /** Waits `ms` ms, or less when the sandbox closes. */
  sleep(ms: number): Promise<void>;
}

const UNAUTHORIZED = {
  errors: [{ message: 'Unauthorized', extensions: { code: 'Unauthorized' } }],
};

/** The body as received; `ended` false when the caller cut it (then `bytes` is what came). */
function readBody(
  req: IncomingMessage,
): Promise<{ bytes: Uint8Array<ArrayBuffer>; ended: boolean }> {
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    const joined = () => {
      const total = chunks.reduce((n, c) => n + c.byteLength, 0);
      const out = new Uint8Array(total);
      let at = 0;
      for (const c of chunks) {
        out.set(c, at);
        at += c.byteLength;
      }
      return out;
    };
    req.on('data', (chunk: Uint8Array) => chunks.push(chunk));
    req.on('end', () => resolve({ bytes: joined(), ended: true }));
    req.on('error', () => resolve({ bytes: joined(), ended: false }));
    req.on('close', () => resolve({ bytes: joined(), ended: req.complete }));
  });
}

function readOperations(json: unknown): ReceivedOperation[] {
  const entries = Array.isArray(json) ? json : json === undefined ? [] : [json];
  return entries.map((entry) => {
    const e = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    const query = typeof e.query === 'string' ? e.query : '';
    const nameField = typeof e.operationName === 'string' ? e.operationName : null;
    return {
      query,
      operationNameField: nameField,
      ...operationInfo(query, nameField),
      variables: e.variables,
      hasExtensions: 'extensions' in e,
    };
  });
}

function recordRequest(req: IncomingMessage, bytes: Uint8Array, seq: number): ReceivedRequest {
  const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
  const headers = flattenHeaders(req.headers);
  const multipart = /^multipart\//i.test(headers['content-type'] ?? '');
  const bodyText = multipart ? null : new TextDecoder().decode(bytes);
  let json: unknown = undefined;
  try {
    json = bodyText ? JSON.parse(bodyText) : undefined;
  } catch {
    json = undefined;
  }
  return {
    seq,
    method: req.method ?? 'GET',
    path: url.pathname,
    search: url.search,
    headers,
    bodyText,
    bodyBytes: bytes.byteLength,
    json,
    operations: url.pathname === '/graphql' ? readOperations(json) : [],
    upload: null,
    answer: null,
  };
}

function send(
  res: ServerResponse,
  record: ReceivedRequest,
  status: number,
  body: string,
  headers: Record<string, string>,
): void {
  record.answer = { status };
  if (res.destroyed) return;
  res.writeHead(status, {
    'content-length': String(new TextEncoder().encode(body).byteLength),
    ...headers,
  });
  res.end(body);
}

function sendJson(res: ServerResponse, record: ReceivedRequest, status: number, body: unknown) {
  send(res, record, status, JSON.stringify(body), {
    'content-type': 'application/json; charset=utf-8',
  });
}

async function answerGraphql(record: ReceivedRequest, deps: HttpDeps, res: ServerResponse) {
  if (record.method !== 'POST') return send(res, record, 405, '', { allow: 'POST' });
  if (record.headers.authorization !== `Bearer ${deps.token}`) {
    return sendJson(res, record, 200, UNAUTHORIZED);
  }
  const { json } = record;
  if (json === undefined || json === null || typeof json !== 'object') {
    const errors = [{ message: 'Body must be JSON', extensions: { code: 'BAD_REQUEST' } }];
    return sendJson(res, record, 400, { errors });
  }
  const rule = deps.ctx.switches.errors;
  const subject: MatchSubject = { path: record.path, operations: record.operations };
  if (rule && matches(rule.match, subject)) {
    const envelope = { data: rule.data ?? null, errors: rule.errors };
    return sendJson(res, record, 200, Array.isArray(json) ? json.map(() => envelope) : envelope);
  }
  if (Array.isArray(json)) {
    const outcomes = await Promise.all(json.map((entry) => runEntry(entry, deps.ctx)));
    return sendJson(res, record, 200, outcomes.map((o) => o.body));
  }
  const outcome = await runEntry(json, deps.ctx);
  sendJson(res, record, outcome.status, outcome.body);
}

async function handle(req: IncomingMessage, res: ServerResponse, deps: HttpDeps) {
  const { bytes, ended } = await readBody(req);
  const record = recordRequest(req, bytes, deps.nextSeq());
  deps.received.push(record);
  if (!ended) return void (record.answer = 'cut');
  const { switches } = deps.ctx;
  const subject: MatchSubject = { path: record.path, operations: record.operations };
  const delay = delayFor(switches, subject);
  if (delay > 0) await deps.sleep(delay);
  if (switches.drop && matches(switches.drop.match, subject)) {
    record.answer = 'dropped';
    req.socket.destroy();
    return;
  }
  const status = switches.status;
  if (status && matches(status.match, subject)) {
    const body = status.body ?? `upstream answered ${status.status}`;
    const type = status.contentType ?? 'text/plain; charset=utf-8';
    return send(res, record, status.status, body, { 'content-type': type });
  }
  if (record.path === '/graphql') return await answerGraphql(record, deps, res);
  if (record.path.startsWith(UPLOAD_PREFIX)) {
    const authorized = record.headers.authorization === `Bearer ${deps.token}`;
    const answer = await answerUpload(record, bytes, deps.ctx.world, authorized);
    return sendJson(res, record, answer.status, answer.body);
  }
  sendJson(res, record, 404, {
    errors: [{ message: 'Not found', extensions: { code: 'NotFound' } }],
  });
}

/** The node:http request listener of the sandbox. An internal failure answers 500. */
export function createRequestListener(deps: HttpDeps) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res, deps).catch((error) => {
      if (res.headersSent || res.destroyed) return;
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`sandbox failure: ${error instanceof Error ? error.message : String(error)}`);
    });
  };
}
