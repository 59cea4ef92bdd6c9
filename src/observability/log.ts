/**
 * The log (beyond the spec; docs/operations.md "Logs"). Two formats, chosen by option `logFormat` /
 * LOG_FORMAT:
 *
 * - `text` (default): the human lines the gateway always wrote (errors, refusals worth telling
 *   an operator), one per event; nothing per request.
 * - `json`: every such line as a JSON object `{time, level, msg}`, and one access line per
 *   answer of a claimed route: `{time, level, route, status, code, durationMs, requestId}`
 *   (`time` ISO 8601, `durationMs` from the route's start to its answer, `code` the error code
 *   of a refusal or null, `level` info / warn (4xx) / error (5xx), `requestId` a fresh UUID).
 *
 * The startup lines are not log lines: every host prints them as SPEC "Startup behaviour and
 * hosts" says, whatever the format. No line carries a token, a key, a session id or a link.
 */

/** What the core writes to. */
export interface Logger {
  /** A human line (the text format writes it as it is). */
  line(text: string): void;
  /** An answer of a claimed route; a no-op in the text format. */
  access(entry: AccessEntry): void;
  /** Whether access lines are written (so callers skip timing and ids when not). */
  readonly accessLines: boolean;
}

/** One answer, as the json format's access line carries it. */
export interface AccessEntry {
  route: string;
  status: number;
  code: string | null;
  durationMs: number;
  requestId: string;
}

function levelOf(status: number): 'info' | 'warn' | 'error' {
  return status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
}

/** A logger writing through `sink` (one line per call) in `format`. */
export function createLogger(format: 'text' | 'json', sink: (line: string) => void): Logger {
  if (format === 'text') {
    return { line: sink, access() {}, accessLines: false };
  }
  const time = () => new Date().toISOString();
  return {
    line(text) {
      const level = /fail|error/i.test(text) ? 'error' : 'info';
      sink(JSON.stringify({ time: time(), level, msg: text }));
    },
    access(e) {
      sink(JSON.stringify({
        time: time(),
        level: levelOf(e.status),
        route: e.route,
        status: e.status,
        code: e.code,
        durationMs: Math.round(e.durationMs * 1000) / 1000,
        requestId: e.requestId,
      }));
    },
    accessLines: true,
  };
}

/** The error code of an envelope text (`errors[0].extensions.code`), or null. */
export function envelopeCode(text: string | undefined): string | null {
  if (text === undefined || !text.startsWith('{"errors"')) return null;
  try {
    const code = JSON.parse(text)?.errors?.[0]?.extensions?.code;
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
}
