/**
 * A stored post → the upstream publish call (facts.json "publishingPostRules.inputByKind" and
 * "upstreamOperationsUsedByService" SvcInstagramPublish): one document per kind, all named
 * SvcInstagramPublish, variables {botID, input}. Pure: no I/O.
 */
import type { Post, PostKind } from './types.ts';

/** The operation name of every publish document (the `?op=` value). */
export const PUBLISH_OPERATION = 'SvcInstagramPublish';

/** Per kind: the social-account publish field and its input type. */
export const PUBLISH_FIELDS: Readonly<Record<PostKind, { field: string; inputType: string }>> = {
  post: { field: 'instagramAccountPublishImage', inputType: 'InstagramPublishImageInput' },
  reel: { field: 'instagramAccountPublishReel', inputType: 'InstagramPublishReelInput' },
  story: { field: 'instagramAccountPublishStory', inputType: 'InstagramPublishStoryInput' },
  carousel: {
    field: 'instagramAccountPublishCarousel',
    inputType: 'InstagramPublishCarouselInput',
  },
};

/** The publish document of `kind` (facts.json documentsByKind). */
export function publishDocument(kind: PostKind): string {
  const { field, inputType } = PUBLISH_FIELDS[kind];
  return `mutation ${PUBLISH_OPERATION}($botID: BotID!, $input: ${inputType}!) { ${field}(botID: $botID, input: $input) { id permalink } }`;
}

/** What to send, or the sentence the post fails with (nothing is sent then). */
export type PublishPlan =
  | {
    document: string;
    field: string;
    variables: { botID: string; input: Record<string, unknown> };
  }
  | { failure: string };

const HTTPS = /^https:\/\/[^\s/?#@]+/;

function mediaType(item: Post['media'][number]): 'Image' | 'Video' {
  return item.type === 'video' ? 'Video' : 'Image';
}

function inputOf(post: Post): Record<string, unknown> | string {
  const media = post.media ?? [];
  const first = media[0];
  const caption = post.caption === '' ? null : post.caption ?? null;
  switch (post.kind) {
    case 'post':
      if (first?.type !== 'image') return 'A post needs an image first';
      return { imageURL: first.url, caption };
    case 'reel': {
      if (first?.type !== 'video') return 'A reel needs a video first';
      const input: Record<string, unknown> = { videoURL: first.url, caption };
      if (post.coverUrl) input.coverURL = post.coverUrl;
      if (typeof post.shareToFeed === 'boolean') input.shareToFeed = post.shareToFeed;
      if (typeof post.thumbOffset === 'number') input.thumbOffset = Math.trunc(post.thumbOffset);
      return input;
    }
    case 'story':
      if (!first) return 'A story needs a media item';
      return { mediaType: mediaType(first), mediaURL: first.url };
    case 'carousel':
      if (media.length < 2 || media.length > 10) return 'A carousel needs 2 to 10 media items';
      return { items: media.map((m) => ({ mediaType: mediaType(m), mediaURL: m.url })), caption };
  }
}

/** Builds the call for a taken post; a media item without an https url fails the post. */
export function planPublish(post: Post): PublishPlan {
  if (!Object.hasOwn(PUBLISH_FIELDS, post.kind)) return { failure: `Unknown kind ${post.kind}` };
  for (const item of post.media ?? []) {
    if (typeof item?.url !== 'string' || !HTTPS.test(item.url)) {
      return { failure: 'A media item has no https url' };
    }
  }
  if (post.kind === 'reel' && post.coverUrl && !HTTPS.test(post.coverUrl)) {
    return { failure: 'The reel cover has no https url' };
  }
  const input = inputOf(post);
  if (typeof input === 'string') return { failure: input };
  return {
    document: publishDocument(post.kind),
    field: PUBLISH_FIELDS[post.kind].field,
    variables: { botID: post.botId, input },
  };
}
