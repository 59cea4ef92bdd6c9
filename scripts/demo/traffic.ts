/**
 * The traffic `deno task demo` sends through each host: real app documents (from the sandbox's
 * `appOperations()`) that must be answered, then requests the gateway must refuse before the
 * upstream sees anything (SPEC "Order in which a GraphQL body is checked": checks 1, 12, 19).
 * Each call is checked: status, error code or answer shape, and what reached the sandbox.
 */
import { type AppOperation, appOperations, type Sandbox, WORLD_IDS } from '../sandbox/mod.ts';

/** A bot id the sandbox account does not hold: the bot fence refuses it (403 BotNotAllowed). */
export const FOREIGN_BOT = 'b000000000000000000000ff';

/** One demo request and what a correct gateway answers. */
export interface DemoCall {
  /** Shown first on the line, e.g. 'MyBotRole' or 'refused: foreign bot'. */
  label: string;
  /** The content-type sent (the refused 415 call sends text/plain). */
  contentType: string;
  /** The POST body. */
  body: string;
  /** The HTTP status a correct gateway answers. */
  status: number;
  /** For a refusal: the `errors[0].extensions.code` expected; the upstream must receive nothing. */
  code?: string;
  /** For an answered call: the operation name the upstream must receive, and a check of `data`. */
  forwarded?: { operationName: string; check: (data: unknown) => boolean };
}

/** The outcome of one call, ready to print. */
export interface DemoResult {
  call: DemoCall;
  status: number;
  /** The answer's first characters, on one line. */
  excerpt: string;
  /** Upstream requests recorded before and after the call. */
  receivedBefore: number;
  receivedAfter: number;
  /** What went wrong ('' when the answer is the expected one). */
  problem: string;
}

/** The app operation named `name` (throws when the app documents lack it). */
export function appOperation(name: string): AppOperation {
  const found = appOperations().find((op) => op.name === name);
  if (!found) throw new Error(`no app operation named ${name} in data/upstream/operations`);
  return found;
}

/** A POST body for an app operation, its sample variables naming `botId`. */
export function operationBody(name: string, botId: string = WORLD_IDS.bot1): string {
  const op = appOperation(name);
  return JSON.stringify({
    query: op.query,
    operationName: op.name,
    variables: op.variables(botId),
  });
}

// deno-lint-ignore no-explicit-any
const at = (data: unknown, ...path: string[]): any =>
  // deno-lint-ignore no-explicit-any
  path.reduce((value: any, key) => value?.[key], data);

const answered = (name: string, check: (data: unknown) => boolean): DemoCall => ({
  label: name,
  contentType: 'application/json',
  body: operationBody(name),
  status: 200,
  forwarded: { operationName: name, check },
});

/** The demo's calls, in order: three queries and a mutation, then three refusals. */
export function demoCalls(): DemoCall[] {
  return [
    answered('CurrentUser', (d) => at(d, 'currentUser', 'name') === 'Sandbox Owner'),
    answered('MyBotRole', (d) => at(d, 'currentUser', 'botRole', 'roleTypeV2') === 'Admin'),
    answered('BotChannels', (d) => at(d, 'bot', 'id') === WORLD_IDS.bot1),
    answered('CreateFlowGroup', (d) => at(d, 'createFlowGroup', 'id') === WORLD_IDS.bot1),
    {
      label: 'refused: foreign bot',
      contentType: 'application/json',
      body: operationBody('MyBotRole', FOREIGN_BOT),
      status: 403,
      code: 'BotNotAllowed',
    },
    {
      label: 'refused: introspection',
      contentType: 'application/json',
      body: JSON.stringify({ query: 'query Peek { __schema { queryType { name } } }' }),
      status: 403,
      code: 'IntrospectionBlocked',
    },
    {
      label: 'refused: text/plain body',
      contentType: 'text/plain',
      body: operationBody('MyBotRole'),
      status: 415,
      code: 'UnsupportedMediaType',
    },
  ];
}

/** Sends one call to `<gatewayUrl>/svc/graphql` and checks the answer and the upstream record. */
export async function sendCall(
  gatewayUrl: string,
  sandbox: Sandbox,
  call: DemoCall,
): Promise<DemoResult> {
  const receivedBefore = sandbox.received.length;
  const response = await fetch(`${gatewayUrl}/svc/graphql`, {
    method: 'POST',
    headers: { 'content-type': call.contentType },
    body: call.body,
  });
  const text = await response.text();
  const receivedAfter = sandbox.received.length;
  const result = {
    call,
    status: response.status,
    excerpt: text.replace(/\s+/g, ' ').slice(0, 110) + (text.length > 110 ? '…' : ''),
    receivedBefore,
    receivedAfter,
  };
  return { ...result, problem: problemOf(call, response.status, text, sandbox, result) };
}

function problemOf(
  call: DemoCall,
  status: number,
  text: string,
  sandbox: Sandbox,
  counts: { receivedBefore: number; receivedAfter: number },
): string {
  if (status !== call.status) return `expected HTTP ${call.status}, got ${status}`;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'the answer is not JSON';
  }
  if (call.code !== undefined) {
    const code = at(json, 'errors', '0', 'extensions', 'code');
    if (code !== call.code) return `expected code ${call.code}, got ${code}`;
    if (counts.receivedAfter !== counts.receivedBefore) return 'the upstream received it';
    return '';
  }
  if (at(json, 'errors') !== undefined) return 'the answer carries errors';
  if (!call.forwarded?.check(at(json, 'data'))) return 'unexpected data';
  const seen = sandbox.received.slice(counts.receivedBefore);
  const upstream = seen.find((r) =>
    r.operations[0]?.operationName === call.forwarded?.operationName
  );
  if (!upstream) return 'the upstream never received it';
  if (upstream.headers.authorization !== `Bearer ${sandbox.token}`) {
    return 'the upstream did not receive the master token';
  }
  return '';
}
