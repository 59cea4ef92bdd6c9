/**
 * Small readers that turn option or environment values into typed settings.
 * SPEC "Limits" > "Options" (the effect column).
 */

/** A number option as given: a number, or its text (an environment value). */
export type NumberLike = number | string;

/** A value with only whitespace around it, or none: undefined. Trimmed otherwise. */
export function text(value: string | undefined | null): string | undefined {
  if (value === undefined || value === null) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** A ceiling: a positive finite number, else the default (SPEC: "A ceiling given as something other than a positive number falls back to the default"). */
export function ceiling(value: NumberLike | undefined, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  const n = typeof value === 'number' ? value : Number(String(value).trim());
  if (typeof value === 'string' && String(value).trim() === '') return fallback;
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** true for `true`, 'true' or '1' (SPEC: "true or 1"). */
export function flag(value: string | boolean | undefined): boolean {
  if (typeof value === 'boolean') return value;
  const v = text(value)?.toLowerCase();
  return v === 'true' || v === '1';
}

/** Splits a list written with commas or spaces; arrays pass through trimmed. */
export function list(value: readonly string[] | string | undefined): string[] {
  if (value === undefined) return [];
  const items = typeof value === 'string' ? value.split(/[\s,]+/) : [...value];
  return items.map((item) => item.trim()).filter((item) => item !== '');
}

/** An origin as compared: lowercased, trailing slashes trimmed. */
export function normaliseOrigin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/+$/, '');
}

/** An absolute http(s) URL with trailing slashes trimmed, else undefined (publicUrl rule). */
export function httpUrl(value: string | undefined): string | undefined {
  const v = text(value);
  if (!v) return undefined;
  try {
    const url = new URL(v);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return v.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}

/** The host part (`name[:port]`, lowercased) of an origin or URL, or undefined. */
export function hostOf(value: string): string | undefined {
  try {
    return new URL(value).host.toLowerCase();
  } catch {
    return undefined;
  }
}

/** A path option: leading slash, no trailing slash. */
export function pathOption(value: string | undefined, fallback: string): string {
  const v = text(value);
  if (!v) return fallback;
  const withSlash = v.startsWith('/') ? v : `/${v}`;
  return withSlash.length > 1 ? withSlash.replace(/\/+$/, '') : withSlash;
}

/** An outbound proxy URL with its credentials masked, for the startup line. */
export function maskCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) {
      parsed.username = parsed.username ? '***' : '';
      parsed.password = parsed.password ? '***' : '';
    }
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(unparseable proxy address)';
  }
}
