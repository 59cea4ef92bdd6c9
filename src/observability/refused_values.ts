/**
 * A log line for each refused Host and Origin value (beyond the spec; docs/operations.md "Logs"):
 * behind a reverse proxy or an /etc/hosts name the page loads and every API call is refused 403,
 * so the operator is told which value was refused and which variable would admit it. Bounded for
 * a flood of distinct values: each value is written at most once a window, and at most
 * `linesPerWindow` lines a window; past that, one line at the next window counts what was left
 * unwritten. A value is quoted as JSON and cut at `valueChars`, so no line break or control
 * character of a request reaches the log.
 */

/** Which check refused, and the variable that would admit the value. */
export type RefusedHeader = 'Host' | 'Origin';

/** The log's bounds (src/config/defaults.ts). */
export interface RefusedValueBounds {
  /** Length of a window, ms. */
  windowMs: number;
  /** Lines written a window at most (and values remembered). */
  linesPerWindow: number;
  /** Characters of a value written at most. */
  valueChars: number;
}

/** Notes refused values and writes the bounded lines through `write`. */
export class RefusedValueLog {
  readonly #write: (line: string) => void;
  readonly #bounds: RefusedValueBounds;
  readonly #now: () => number;
  /** Values written this window (at most linesPerWindow keys). */
  readonly #written = new Set<string>();
  #windowStart = -Infinity;
  #unwritten = 0;

  constructor(write: (line: string) => void, bounds: RefusedValueBounds, now = Date.now) {
    this.#write = write;
    this.#bounds = bounds;
    this.#now = now;
  }

  /**
   * A request refused for `value` of `header` (null: the header was absent); `why` says what
   * would admit it, e.g. "not in ALLOWED_ORIGINS".
   */
  note(header: RefusedHeader, value: string | null, why: string): void {
    this.#turn(this.#now());
    const shown = value === null
      ? '(none)'
      : JSON.stringify(value.slice(0, this.#bounds.valueChars));
    const key = `${header} ${shown}`;
    if (this.#written.has(key)) return;
    if (this.#written.size >= this.#bounds.linesPerWindow) {
      this.#unwritten++;
      return;
    }
    this.#written.add(key);
    this.#write(`svc-gateway: refused ${key}: ${why}`);
  }

  /** A new window at `now`: forget the values, tell what the last one left unwritten. */
  #turn(now: number): void {
    if (now - this.#windowStart < this.#bounds.windowMs) return;
    if (this.#unwritten > 0) {
      this.#write(
        `svc-gateway: refused ${this.#unwritten} more requests for other Host or Origin values in the last window (not written)`,
      );
    }
    this.#written.clear();
    this.#unwritten = 0;
    this.#windowStart = now;
  }
}

/** What the log is told of a request refused by step 1 or 2 (the headers it was refused for). */
export interface RefusedRequest {
  headers: { get(name: string): string | null };
}

/**
 * Notes the value a refusal of SPEC "Checks before any route" 1 or 2 was for: the Host of a 403
 * ProxyHostForbidden, else the Origin (or, without one, the Fetch Metadata line) of a 403
 * ProxyOriginForbidden. `sameOriginOnly`: the refusal came from the admin prefix (step 6).
 */
export function noteRefusedCaller(
  log: RefusedValueLog,
  code: string,
  request: RefusedRequest,
  sameOriginOnly: boolean,
): void {
  if (code === 'ProxyHostForbidden') {
    log.note(
      'Host',
      request.headers.get('host'),
      'not in ALLOWED_HOSTS (nor PUBLIC_URL, ALLOWED_ORIGINS)',
    );
    return;
  }
  const origin = request.headers.get('origin');
  const why = sameOriginOnly
    ? 'the admin panel answers its own origin only'
    : origin === null
    ? `no Origin, and sec-fetch-site is ${JSON.stringify(request.headers.get('sec-fetch-site'))}`
    : 'not in ALLOWED_ORIGINS';
  log.note('Origin', origin, why);
}
