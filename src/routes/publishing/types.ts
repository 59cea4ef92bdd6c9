/**
 * The publish queue's shapes, as the routes answer them (SPEC "Publish queue: /svc/publishing";
 * rules: data/upstream/facts.json "publishingPostRules"). Types only: the client library imports
 * them with `import type` and pulls in no server code.
 */

/** A post's kind: which social-account publish field it becomes (post = a single image). */
export type PostKind = 'post' | 'reel' | 'story' | 'carousel';

/**
 * Where a post is in its life:
 * - `draft`: no time; never fired;
 * - `scheduled`: has a time; the scheduler claims it once the time has come;
 * - `publishing`: claimed by the scheduler (and taken by one callback); not editable;
 * - `published`: the upstream accepted it (`permalink` set); not editable;
 * - `failed`: the upstream refused or did not answer (`lastError`), or no outcome came after 3
 *   attempts; an edit reschedules it (attempts and error cleared).
 */
export type PostStatus = 'draft' | 'scheduled' | 'publishing' | 'published' | 'failed';

/** One media item of a post. `type` 'video' means video; anything else is stored as 'image'. */
export interface PostMediaItem {
  /** The caller's own id for the item, if any. */
  id: string | null;
  type: 'image' | 'video';
  /** https only. */
  url: string;
  /** The media key from POST /media when the item was uploaded here (keeps the object alive). */
  source: string | null;
}

/** A queued post as every posts route answers it. Times: ISO 8601 UTC with ms and Z. */
export interface Post {
  /** UUID. */
  id: string;
  /** The bot (upstream bot id) the post belongs to. */
  botId: string;
  kind: PostKind;
  /** post: an image first; reel: a video first; story: one item or more; carousel: 2 to 10. */
  media: PostMediaItem[];
  /** At most 2200 code points; null when empty. Not sent for a story. */
  caption: string | null;
  /** Reel only: cover image (https). */
  coverUrl: string | null;
  /** Reel only. */
  shareToFeed: boolean | null;
  /** Reel only: integer (a fraction is truncated). */
  thumbOffset: number | null;
  scheduledAt: string | null;
  status: PostStatus;
  /** Set once published (https). */
  permalink: string | null;
  /** The upstream's reason (its error code, else its sentence) once failed. */
  lastError: string | null;
  /** Times the scheduler claimed it since the last edit. */
  attempts: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * The body of POST /posts (kind required) and PATCH /posts/<id> (any subset). Any other key is
 * 422 BadPost. `scheduledAt`: any timestamp PostgreSQL accepts, '' or null for none. `status`:
 * only 'draft' (needs no time) or 'scheduled' (needs a time); absent, it follows the time.
 */
export interface PostInput {
  kind?: PostKind;
  media?: { id?: string | null; type?: string; url: string; source?: string | null }[];
  caption?: string | null;
  scheduledAt?: string | null;
  status?: 'draft' | 'scheduled';
  coverUrl?: string | null;
  shareToFeed?: boolean | null;
  thumbOffset?: number | null;
}

/** GET /config: whether this deployment fires scheduled posts, and why not. */
export interface PublishingConfig {
  scheduling: boolean;
  /** What is missing, by variable or step name (never a value). Empty when scheduling. */
  missing: string[];
  /** A registration exists (POST /register was done). */
  registered: boolean;
  /** Media uploads: accepted content types, per-file ceiling (bytes), per-bot share (bytes). */
  media: { contentTypes: string[]; maxBytes: number; quotaBytes: number };
}

/**
 * What Storage says of the media bucket (PUBLISHING_MEDIA_BUCKET): `ready` (exists, public),
 * `private` (exists but not public: the upstream fetches media by URL and could not), `missing`
 * (no such bucket: every upload fails), `unreachable` (Storage did not answer or refused).
 */
export type MediaBucketState = 'ready' | 'private' | 'missing' | 'unreachable';

/** POST /register's answer (no secret in it). */
export interface PublishingRegistration {
  registered: true;
  callbackUrl: string;
  /** HOST_AUTOMATION_BYPASS_SECRET was recorded. */
  bypass: boolean;
  /** The pg_cron jobs were (re)scheduled (false where pg_cron is not installed). */
  scheduled: boolean;
  /** The media bucket uploads go to, and its state when registering. */
  mediaBucket: { name: string; state: MediaBucketState };
}

/** POST /media's answer. */
export interface MediaObject {
  /** `<botId>/<uuid>.<extension>`: what DELETE /media?key= and a media item's `source` take. */
  key: string;
  /** The public URL of the object (https in production). */
  url: string;
  contentType: string;
  bytes: number;
}

/** POST /publish-due's answer: the outcome recorded. */
export interface PublishOutcome {
  id: string;
  status: 'published' | 'failed';
  permalink: string | null;
  lastError: string | null;
}
