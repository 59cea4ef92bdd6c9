/**
 * Answer shapes of the optional routes the client calls: the route modules' own types
 * (`export type` from src/routes/auth/types.ts and src/routes/publishing/types.ts; admin's come
 * from src/routes/admin/types.ts). Type-only: nothing of the server runs in the browser.
 */
export type {
  AuthBot,
  AuthRole,
  AuthWorkspace,
  CreateBotAnswer,
  DeleteBotAnswer,
  ProvisionAnswer,
  RecoveryLinkAnswer,
  RenameBotAnswer,
} from '../routes/auth/types.ts';

export type {
  MediaBucketState,
  MediaObject,
  Post,
  PostInput,
  PostKind,
  PostMediaItem,
  PostStatus,
  PublishingConfig,
  PublishingRegistration,
} from '../routes/publishing/types.ts';
