/**
 * The REST upload table: SPEC "Route table" (POST /svc/api/filestorage/upload/...)
 * and facts.json restUploadPaths. One row per path under the api prefix, with the
 * query parameters that path is known to take (facts.json upstreamUrlShape:
 * `?fileType=<Image|Document|...>&botID=<botId>[&pluginID=<blockElementID>]`, the
 * pluginID of the flow builder's media on the plugin path).
 */

/** Whose upload it is: bot-scoped paths need exactly one botID; account-scoped is useraccount. */
export type UploadScope = 'bot' | 'account';

/** One upload path: its scope and the query parameters forwarded, in the order they are sent. */
export interface UploadRoute {
  scope: UploadScope;
  /** Names forwarded (botID as the one fenced value; the others as their first value). */
  params: readonly string[];
}

const BOT_PARAMS = ['fileType', 'botID'] as const;

/** The five upload paths (relative to the api prefix). */
export const UPLOAD_PATHS: Readonly<Record<string, UploadRoute>> = Object.freeze({
  '/filestorage/upload/bot': { scope: 'bot', params: BOT_PARAMS },
  '/filestorage/upload/livechat': { scope: 'bot', params: BOT_PARAMS },
  '/filestorage/upload/plugin': { scope: 'bot', params: [...BOT_PARAMS, 'pluginID'] },
  '/filestorage/upload/widget': { scope: 'bot', params: BOT_PARAMS },
  '/filestorage/upload/useraccount': { scope: 'account', params: ['fileType'] },
});

/**
 * Whether a query parameter name is a spelling of botID: after percent-decoding (done by
 * URLSearchParams), case folding and dropping trailing `[...]` groups (`botID[]`, `botID[0]`,
 * which qs, PHP and Rails fold into `botID`), it is `botid`. SPEC "Route table": "any spelling of
 * the name is read".
 */
export function isBotIdName(name: string): boolean {
  return name.toLowerCase().replace(/(\[[^\]]*\])+$/, '') === 'botid';
}

/** The botID query values, every spelling of the name read (`isBotIdName`). */
export function botIdValues(search: URLSearchParams): string[] {
  const values: string[] = [];
  for (const [name, value] of search) if (isBotIdName(name)) values.push(value);
  return values;
}

/**
 * The query string forwarded for an upload (SPEC "Forwarding rules": nothing the client sends is
 * forwarded as it arrived): only the parameters `route` takes, under their own names, re-encoded;
 * botID is the one value the bot fence checked (the caller refused none or two before); any other
 * name, and any other spelling, is dropped. '' when nothing is forwarded, else `?...`.
 */
export function uploadSearch(route: UploadRoute, search: URLSearchParams): string {
  const out = new URLSearchParams();
  for (const name of route.params) {
    const value = name === 'botID' ? botIdValues(search)[0] : search.get(name);
    if (value !== undefined && value !== null) out.append(name, value);
  }
  const text = out.toString();
  return text === '' ? '' : `?${text}`;
}
