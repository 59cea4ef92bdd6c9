/**
 * POST /media?botID= (multipart, a `file` part) and DELETE /media?botID=&key= (SPEC "Publish
 * queue", its media rows of "Errors"; facts.json "publishingMediaTypes").
 *
 * Upload order: session and bot fence (caller.ts); body over 25 MiB (declared or read) → 413
 * MediaTooLarge; not multipart or no file part → 400 InvalidRequest; declared type not listed →
 * 415 MediaTypeNotAllowed; bytes disagreeing → 415 MediaTypeMismatch; the bot's share
 * (PUBLISHING_MEDIA_QUOTA_MB) → 507 MediaQuotaExceeded (reserved in svc_media_reserve before the
 * write); Storage refusing → 502 MediaUploadFailed (the reservation is dropped; its message
 * names the bucket when Storage has no bucket of that name). Answers 201
 * MediaObject with key `<botId>/<uuid>.<ext>`.
 *
 * Delete: a key that is empty, outside the bot's prefix, or not shaped like a written key → 404
 * MediaNotFound (before any call); nothing stored there → 404 MediaNotFound; Storage refusing →
 * 502 MediaDeleteFailed. Answers {key, deleted: true}.
 */
import { DEFAULTS } from '../../config/defaults.ts';
import { readCappedBytes } from '../../http/body.ts';
import { memoryBusy } from '../../http/busy.ts';
import { ok, refuse, refuseDatabase } from './answers.ts';
import { admitBotCaller } from './caller.ts';
import type { PublishingRequest } from './context.ts';
import { bytesAgree, listedType } from './media_types.ts';
import type { MediaObject } from './types.ts';

const DB_TIMEOUT_MS = DEFAULTS.publishingDatabaseTimeoutMs;
/** Room for the multipart framing around a file of the full 25 MiB. */
const MULTIPART_SLACK_BYTES = 64 * 1024;

/** A key this route writes: `<botId>/<uuid>.<listed extension>`. */
const WRITTEN_KEY =
  /^([A-Za-z0-9_-]{1,64})\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(jpg|png|webp|mp4|mov)$/;

function tooLarge(req: PublishingRequest): Response {
  return refuse(
    'MediaTooLarge',
    `A media file is at most ${DEFAULTS.mediaFileBytes} bytes`,
    req.cors,
    {
      connection: 'close',
    },
  );
}

/** The `file` part of the multipart body, or the refusal. */
async function filePart(req: PublishingRequest): Promise<File | Response> {
  const contentType = req.request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(contentType)) {
    await req.request.body?.cancel().catch(() => {});
    return refuse('InvalidRequest', 'Send multipart/form-data with a file part', req.cors);
  }
  // what it holds: the bytes, the parsed form's file and the file's own copy (the memory budget)
  const read = await readCappedBytes(
    req.request,
    req.state,
    DEFAULTS.mediaFileBytes + MULTIPART_SLACK_BYTES,
    DEFAULTS.memoryBodyBytesPerByte + DEFAULTS.memoryMediaPerByte,
  );
  if (read === 'over') return tooLarge(req);
  if (read === 'busy') {
    const busy = memoryBusy();
    return refuse(busy.code, busy.message, req.cors, busy.headers);
  }
  let form: FormData;
  try {
    form = await new Response(read, { headers: { 'content-type': contentType } }).formData();
  } catch {
    return refuse('InvalidRequest', 'The multipart body does not parse', req.cors);
  }
  const file = form.get('file');
  if (!(file instanceof File)) {
    return refuse('InvalidRequest', 'The multipart body has no file part', req.cors);
  }
  return file;
}

/** POST /media?botID=. */
export async function uploadMedia(req: PublishingRequest): Promise<Response> {
  const caller = await admitBotCaller(req);
  if (caller instanceof Response) {
    await req.request.body?.cancel().catch(() => {});
    return caller;
  }
  const file = await filePart(req);
  if (file instanceof Response) return file;
  if (file.size > DEFAULTS.mediaFileBytes) return tooLarge(req);
  const type = listedType(file.type);
  if (type === null) {
    return refuse('MediaTypeNotAllowed', 'That content type cannot be published', req.cors);
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (!await bytesAgree(bytes, type)) {
    return refuse('MediaTypeMismatch', `The file is not ${type.contentType}`, req.cors);
  }
  const { service, storage, core } = req.ctx;
  if (service === null || storage === null) {
    return refuse('ProxyAuthMisconfigured', 'Media storage needs a service-role key', req.cors);
  }
  const key = `${caller.botId}/${crypto.randomUUID()}.${type.extension}`;
  const reserved = await service.call('svc_media_reserve', {
    p_bot_id: caller.botId,
    p_key: key,
    p_bytes: bytes.byteLength,
    p_content_type: type.contentType,
    p_quota_bytes: core.config.mediaQuotaMb * 1024 * 1024,
  }, DB_TIMEOUT_MS);
  if (reserved.status === 507) {
    return refuse('MediaQuotaExceeded', 'This bot filled its share of the media bucket', req.cors);
  }
  if (reserved.status !== 200) return refuseDatabase(reserved, req.cors);
  const stored = await storage.upload(key, bytes, type.contentType);
  if (stored !== 'stored') {
    await service.call('svc_media_forget', { p_bot_id: caller.botId, p_key: key }, DB_TIMEOUT_MS);
    const sentence = stored === 'missingBucket'
      ? `The media bucket ${storage.bucket} does not exist (see PUBLISHING_MEDIA_BUCKET)`
      : 'The storage refused the file';
    return refuse('MediaUploadFailed', sentence, req.cors);
  }
  const answer: MediaObject = {
    key,
    url: storage.publicUrl(key),
    contentType: type.contentType,
    bytes: bytes.byteLength,
  };
  return ok(answer, req.cors, 201);
}

/** DELETE /media?botID=&key=. */
export async function deleteMedia(req: PublishingRequest): Promise<Response> {
  await req.request.body?.cancel().catch(() => {});
  const caller = await admitBotCaller(req);
  if (caller instanceof Response) return caller;
  const keys = new URL(req.request.url).searchParams.getAll('key');
  const key = keys.length === 1 ? keys[0] : '';
  const shaped = WRITTEN_KEY.exec(key);
  if (shaped === null || shaped[1] !== caller.botId) {
    return refuse('MediaNotFound', 'No such media object of this bot', req.cors);
  }
  const { service, storage } = req.ctx;
  if (service === null || storage === null) {
    return refuse('ProxyAuthMisconfigured', 'Media storage needs a service-role key', req.cors);
  }
  const removed = await storage.remove(key);
  if (removed === 'failed') {
    return refuse('MediaDeleteFailed', 'The storage refused to delete the file', req.cors);
  }
  await service.call('svc_media_forget', { p_bot_id: caller.botId, p_key: key }, DB_TIMEOUT_MS);
  if (removed === 'absent') {
    return refuse('MediaNotFound', 'No such media object of this bot', req.cors);
  }
  return ok({ key, deleted: true }, req.cors);
}
