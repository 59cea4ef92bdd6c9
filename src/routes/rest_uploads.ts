/**
 * The REST upload table: SPEC "Route table" (POST /svc/api/filestorage/upload/...)
 * and facts.json restUploadPaths. One row per path under the api prefix.
 */

/** Whose upload it is: bot-scoped paths need exactly one botID; account-scoped is useraccount. */
export type UploadScope = 'bot' | 'account';

/** The five upload paths (relative to the api prefix) and their scope. */
export const UPLOAD_PATHS: Readonly<Record<string, UploadScope>> = Object.freeze({
  '/filestorage/upload/bot': 'bot',
  '/filestorage/upload/livechat': 'bot',
  '/filestorage/upload/plugin': 'bot',
  '/filestorage/upload/widget': 'bot',
  '/filestorage/upload/useraccount': 'account',
});

/**
 * The botID query values, the parameter name read in any spelling
 * (botID, botid, BOTID...). SPEC: "any spelling of the name is read".
 */
export function botIdValues(search: URLSearchParams): string[] {
  const values: string[] = [];
  for (const [name, value] of search) if (name.toLowerCase() === 'botid') values.push(value);
  return values;
}
