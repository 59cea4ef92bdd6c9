/**
 * The publishable media types (DEFAULTS.mediaTypes, facts.json "publishingMediaTypes") and the
 * check of a file against them: the declared multipart type must be listed (else 415
 * MediaTypeNotAllowed) and the bytes, sniffed by `file-type`, must agree with it (else 415
 * MediaTypeMismatch; MP4 and QuickTime are interchangeable, as their containers are).
 */
import { fileTypeFromBuffer } from 'file-type';
import { DEFAULTS } from '../../config/defaults.ts';

/** One publishable type: its content type and the extension of the object key. */
export type MediaType = (typeof DEFAULTS.mediaTypes)[number];

/** The listed type of a declared content type (parameters and case ignored), or null. */
export function listedType(declared: string): MediaType | null {
  const bare = declared.split(';')[0].trim().toLowerCase();
  return DEFAULTS.mediaTypes.find((t) => t.contentType === bare) ?? null;
}

const VIDEO_CONTAINERS = new Set(['video/mp4', 'video/quicktime']);

/** True when the bytes sniff as `type` (MP4 and QuickTime count as one another). */
export async function bytesAgree(bytes: Uint8Array, type: MediaType): Promise<boolean> {
  const sniffed = (await fileTypeFromBuffer(bytes))?.mime as string | undefined;
  if (sniffed === undefined) return false;
  if (sniffed === type.contentType) return true;
  return VIDEO_CONTAINERS.has(sniffed) && VIDEO_CONTAINERS.has(type.contentType);
}
