/**
 * Typed calls of the publish queue (SPEC "Publish queue: /svc/publishing"; refusals: "Publish
 * queue"). Mounted only with the session gate and a service-role key: without them every call
 * throws SvcNotAvailableError, and the app keeps its queue in the browser. Every bot-scoped call
 * names its bot as `?botID=` (fenced by the gateway). `register` is the admin panel holder's
 * (svc_admin cookie and x-svc-admin header).
 */
import { CLIENT_DEFAULTS } from './defaults.ts';
import { callRoute, routeContext, type SvcRoutesOptions, withoutSession } from './route_call.ts';
import type {
  MediaObject,
  Post,
  PostInput,
  PublishingConfig,
  PublishingRegistration,
} from './route_types.ts';
import { uploadForm, type UploadProgress } from './upload.ts';

/** Options of {@link createPublishingRoutes}: the shared ones and the prefix. */
export interface SvcPublishingRoutesOptions extends SvcRoutesOptions {
  publishingPath?: string;
}

/** The publish queue's calls. */
export interface SvcPublishingRoutes {
  /** GET /config: whether this deployment can schedule (and what it lacks). */
  config(): Promise<PublishingConfig>;
  /** POST /register (admin session): where the scheduler calls back. */
  register(): Promise<PublishingRegistration>;
  posts(botID: string): Promise<Post[]>;
  createPost(botID: string, input: PostInput): Promise<Post>;
  updatePost(botID: string, id: string, patch: PostInput): Promise<Post>;
  deletePost(botID: string, id: string): Promise<{ id: string }>;
  /** POST /media (multipart, part `file`), reporting upload progress. */
  uploadMedia(
    botID: string,
    file: Blob,
    options?: { filename?: string; onProgress?: (progress: UploadProgress) => void },
  ): Promise<MediaObject>;
  deleteMedia(botID: string, key: string): Promise<{ key: string; deleted: true }>;
}

/** Creates the publish queue calls (one session latch for all of them: route_call.ts). */
export function createPublishingRoutes(
  options: SvcPublishingRoutesOptions = {},
): SvcPublishingRoutes {
  const prefix = options.publishingPath ?? CLIENT_DEFAULTS.publishingPath;
  const context = routeContext(options);
  const post = (id: string) => `${prefix}/posts/${encodeURIComponent(id)}`;
  return {
    config: () => callRoute(context, { method: 'GET', path: `${prefix}/config` }),
    register: () =>
      callRoute(withoutSession(context), {
        method: 'POST',
        path: `${prefix}/register`,
        headers: { 'x-svc-admin': '1' },
        json: {},
      }),
    posts: (botID) =>
      callRoute(context, { method: 'GET', path: `${prefix}/posts`, query: { botID } }),
    createPost: (botID, input) =>
      callRoute(context, {
        method: 'POST',
        path: `${prefix}/posts`,
        query: { botID },
        json: input,
      }),
    updatePost: (botID, id, patch) =>
      callRoute(context, { method: 'PATCH', path: post(id), query: { botID }, json: patch }),
    deletePost: (botID, id) =>
      callRoute(context, { method: 'DELETE', path: post(id), query: { botID } }),
    uploadMedia(botID, file, o = {}) {
      const form = new FormData();
      form.append('file', file, o.filename ?? ((file as File).name || 'upload'));
      return uploadForm(context, `${prefix}/media`, { botID }, form, o.onProgress);
    },
    deleteMedia: (botID, key) =>
      callRoute(context, { method: 'DELETE', path: `${prefix}/media`, query: { botID, key } }),
  };
}
