/**
 * REST uploads: `POST /api/filestorage/upload/{bot,livechat,plugin,widget,useraccount}` with a
 * multipart body carrying a `file` part; answers `{id: '<24-hex file id>'}`
 * (facts.json `restUploadPaths`). The id is derived from the kind, the bot and the file bytes.
 */
import { digest, hex24 } from './ids.ts';
import type { ReceivedRequest } from './record.ts';
import type { World } from './world.ts';

/** Upload kinds and their scope: bot-scoped kinds need `?botID=<a bot of the world>`. */
export const UPLOAD_KINDS: Record<string, 'bot' | 'account'> = {
  bot: 'bot',
  livechat: 'bot',
  plugin: 'bot',
  widget: 'bot',
  useraccount: 'account',
};

/** The path prefix of every upload route. */
export const UPLOAD_PREFIX = '/api/filestorage/upload/';

/** An answer: status and JSON body. */
export interface UploadAnswer {
  status: number;
  body: unknown;
}

function refused(status: number, code: string, message: string): UploadAnswer {
  return { status, body: { errors: [{ message, extensions: { code } }] } };
}

/** The multipart boundary of a content-type header, or null. */
export function boundaryOf(contentType: string): string | null {
  const found = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return found ? (found[1] ?? found[2]) : null;
}

/**
 * Answers an upload whose request is already recorded (`record.upload` is filled here).
 * Refusals: 404 NotFound (unknown kind), 405 (not POST), 401 Unauthorized (token),
 * 400 BadRequest (not multipart, no `file` part, no botID), 403 NotEnoughPermissions (botID of
 * no bot of the world).
 */
export async function answerUpload(
  record: ReceivedRequest,
  bytes: Uint8Array<ArrayBuffer>,
  world: World,
  authorized: boolean,
): Promise<UploadAnswer> {
  const kind = record.path.slice(UPLOAD_PREFIX.length);
  const scope = UPLOAD_KINDS[kind];
  if (!scope) return refused(404, 'NotFound', 'No such upload path');
  if (record.method !== 'POST') return refused(405, 'MethodNotAllowed', 'Uploads are POST');
  if (!authorized) return refused(401, 'Unauthorized', 'Unauthorized');
  const contentType = record.headers['content-type'] ?? '';
  record.upload = {
    kind,
    contentType,
    boundary: boundaryOf(contentType),
    file: null,
    fields: {},
    fileId: null,
  };
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
  } catch {
    return refused(400, 'BadRequest', 'Body is not multipart/form-data');
  }
  let file: File | null = null;
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') record.upload.fields[name] = value;
    else if (name === 'file') file = value;
  }
  if (!file) return refused(400, 'BadRequest', 'The multipart body has no file part');
  record.upload.file = { name: file.name, bytes: file.size, type: file.type };
  const botId = new URLSearchParams(record.search).get('botID');
  if (scope === 'bot' && !botId) return refused(400, 'BadRequest', 'botID is required');
  if (scope === 'bot' && botId && !world.bot(botId)) {
    return refused(403, 'NotEnoughPermissions', 'Not enough permissions');
  }
  const content = new Uint8Array(await file.arrayBuffer());
  const owner = scope === 'bot' ? `bot:${botId}` : `user:${world.user.id}`;
  record.upload.fileId = hex24(`file:${kind}:${owner}:${digest(content)}`);
  return { status: 200, body: { id: record.upload.fileId } };
}
