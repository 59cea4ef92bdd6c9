/**
 * Upstream error rewriting (SPEC "Error envelope": "every code lookup reads both levels,
 * nested code first. An entry whose sentence names an internal upstream service has its
 * sentence replaced and, if it had no code, gets code UpstreamServiceError"; facts
 * `upstreamMessageScrub`: HTTP GraphQL answers, WS next/error frames and WS close reasons).
 *
 * Cheap when there is nothing to rewrite: the text (or bytes) is searched for `ubgraph`
 * first and parsed only on a hit. Rewriting is copy-on-write and keeps every other field
 * and the order of keys.
 *
 * @module
 */

import { DEFAULTS } from '../config/defaults.ts';
import { nestsDeeperThan } from '../http/json_depth.ts';
import { UPSTREAM_MESSAGE_SCRUB } from './lists.ts';

const { trigger, replacementMessage, replacementCode } = UPSTREAM_MESSAGE_SCRUB;

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function names(message: unknown): boolean {
  return typeof message === 'string' && message.includes(trigger);
}

/**
 * The codes of one error entry: every `extensions.errors[].extensions.code` (nested level
 * first), then `extensions.code`. Non-string codes are ignored; an entry of any other shape
 * has none.
 */
export function errorCodes(entry: unknown): string[] {
  const codes: string[] = [];
  if (!isObj(entry) || !isObj(entry.extensions)) return codes;
  const nested = entry.extensions.errors;
  if (Array.isArray(nested)) {
    for (const n of nested) {
      if (isObj(n) && isObj(n.extensions) && typeof n.extensions.code === 'string') {
        codes.push(n.extensions.code);
      }
    }
  }
  if (typeof entry.extensions.code === 'string') codes.push(entry.extensions.code);
  return codes;
}

/** Rewrites one error entry; returns the same object when nothing changes. */
function scrubEntry(entry: unknown): unknown {
  if (!isObj(entry)) return entry;
  let extensions = entry.extensions;
  if (isObj(extensions) && Array.isArray(extensions.errors)) {
    const nested = scrubList(extensions.errors, scrubNested);
    if (nested !== extensions.errors) extensions = { ...extensions, errors: nested };
  }
  const outer = names(entry.message);
  if (!outer && extensions === entry.extensions) return entry;
  const out: Obj = { ...entry };
  if (outer) {
    out.message = replacementMessage;
    if (errorCodes(entry).length === 0) {
      extensions = isObj(extensions)
        ? { ...extensions, code: replacementCode }
        : { code: replacementCode };
    }
  }
  if (extensions !== entry.extensions) out.extensions = extensions;
  return out;
}

/** A nested failure: only its sentence is replaced. */
function scrubNested(entry: unknown): unknown {
  return isObj(entry) && names(entry.message) ? { ...entry, message: replacementMessage } : entry;
}

function scrubList(list: readonly unknown[], each: (v: unknown) => unknown): readonly unknown[] {
  let out: unknown[] | null = null;
  for (let i = 0; i < list.length; i++) {
    const v = each(list[i]);
    if (v !== list[i]) {
      out ??= list.slice();
      out[i] = v;
    }
  }
  return out ?? list;
}

/** A result `{data?, errors?}`, or a graphql-ws frame carrying one in `payload`. */
function scrubResult(body: Obj): Obj {
  let out = body;
  if (Array.isArray(body.errors)) {
    const errors = scrubList(body.errors, scrubEntry);
    if (errors !== body.errors) out = { ...body, errors };
  }
  if ((body.type === 'next' || body.type === 'error') && body.payload !== undefined) {
    const payload = scrubErrors(body.payload);
    if (payload !== body.payload) out = { ...out, payload };
  }
  return out;
}

/**
 * Rewrites upstream errors in a parsed answer. Accepts a GraphQL result `{data, errors}`,
 * a batch answer (array of results), an array of error entries (a graphql-ws `error`
 * frame's payload), or a whole graphql-ws `next`/`error` frame. Returns the same value
 * when nothing names an internal service; anything else is returned unchanged.
 */
export function scrubErrors(body: unknown): unknown {
  if (Array.isArray(body)) {
    return scrubList(
      body,
      (v) => isObj(v) && Array.isArray(v.errors) ? scrubResult(v) : scrubEntry(v),
    );
  }
  return isObj(body) ? scrubResult(body) : body;
}

/**
 * The whole answer that stands for one naming an internal service but nested too deep to be
 * rewritten entry by entry (docs/readings.md "JSON nesting depth").
 */
const REPLACED_ANSWER = JSON.stringify({
  errors: [{ message: replacementMessage, extensions: { code: replacementCode } }],
});

/**
 * Rewrites an answer's JSON text: returned as is (no parse) unless it contains `ubgraph`;
 * then parsed, rewritten and re-serialised only if something changed. Text that is not
 * JSON is returned as is. Text containing `ubgraph` and nested deeper than `maxDepth` levels is
 * not parsed (re-serialising it could exhaust the call stack): it is replaced whole by one entry
 * carrying the replacement sentence and code.
 */
export function scrubAnswerText(
  text: string,
  maxDepth: number = DEFAULTS.jsonDepthHardMax,
): string {
  if (!text.includes(trigger)) return text;
  if (nestsDeeperThan(text, maxDepth)) return REPLACED_ANSWER;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  const out = scrubErrors(parsed);
  return out === parsed ? text : JSON.stringify(out);
}

/** A WebSocket close reason naming an internal service becomes the replacement sentence. */
export function scrubCloseReason(reason: string): string {
  return reason.includes(trigger) ? replacementMessage : reason;
}
