/**
 * The upstream facts lists the document analysis reads, as typed constants.
 *
 * Copied from `data/upstream/facts.json` (keys `accountOperations`,
 * `accountStructureOperations`, `accountScope`, `botIdArguments`, `slowFields`,
 * `resourceIdArguments`, `upstreamOperationsUsedByService.upstreamMessageScrub`) so that
 * the core needs no JSON file at run time; `tests/graphql/lists_test.ts` fails when this
 * table and the facts file disagree. Implements the lists SPEC "Order in which a GraphQL
 * body is checked" and "Document checks in detail" refer to without showing.
 *
 * @module
 */
import { DEFAULTS } from '../config/defaults.ts';

/**
 * Root fields always refused with 403 AccountOperationBlocked, gate on or off
 * (SPEC step 13): they act on the account behind the master token.
 */
export const ACCOUNT_OPERATIONS: ReadonlySet<string> = new Set([
  'createPublicAPIToken',
  'revokePublicAPIToken',
  'botResetAPIToken',
  'authByFacebookOAuthCodeWithRefs',
  'authByFacebookSDKAccessTokenWithRefs',
  'authByFacebookSDKAccessTokenAndroidAppWithRefs',
  'authByGoogleWithRefs',
  'authByGoogleAndroidAppWithRefs',
  'authByAppleForIOSApp',
  'authByInstagramOAuthCode',
  'authByOneTimeShortLivedToken',
  'logout',
  'changeBotMemberRoleV2',
  'removeMemberFromBot',
  'acceptBotInvite',
  'botInviteDelete',
]);

/**
 * Root fields refused with 403 AccountStructureBlocked while the gate is on (SPEC step
 * 15): they change which workspaces and bots the deployment has.
 */
export const ACCOUNT_STRUCTURE_OPERATIONS: ReadonlySet<string> = new Set([
  'createWorkspaceAndBot',
  'workspaceCreate',
  'workspaceCreateBot',
  'copyBot',
  'workspaceRename',
  'workspaceDelete',
  'workspaceTransferBot',
  'deleteBot',
  'renameBot',
]);

/** Root fields that are introspection (SPEC step 12, 403 IntrospectionBlocked). */
export const INTROSPECTION_FIELDS: ReadonlySet<string> = new Set(['__schema', '__type']);

/**
 * What a gated caller may select (SPEC step 14, facts `accountScope`).
 *
 * - `currentUserAllowedFields`: the only plain fields allowed under `currentUser`.
 * - `currentUserFieldsAllowedWhenArgumentIsABot`: field -> argument that must name a bot.
 * - `currentUserFieldsAllowedWhenArgumentNamesAResource`: field -> argument that must name
 *   a resource id (a 24-hex string the resource fence checks).
 * - `botFieldsDenied`: fields refused under any Bot selection.
 * - `botWorkspaceAllowedFields`: the only fields allowed under a Bot's `workspace`.
 */
export const ACCOUNT_SCOPE = {
  currentUserField: 'currentUser',
  currentUserAllowedFields: new Set(['id', 'botRole', '__typename']) as ReadonlySet<string>,
  currentUserFieldsAllowedWhenArgumentIsABot: new Map([
    ['coworkerConversationsConnection', 'botID'],
  ]) as ReadonlyMap<string, string>,
  currentUserFieldsAllowedWhenArgumentNamesAResource: new Map([
    ['coworkerGetConversation', 'id'],
  ]) as ReadonlyMap<string, string>,
  botFieldsDenied: new Set(['invites', 'apiToken']) as ReadonlySet<string>,
  botWorkspaceField: 'workspace',
  botWorkspaceAllowedFields: new Set(['id', 'title', '__typename']) as ReadonlySet<string>,
} as const;

/**
 * Where a bot is named (facts `botIdArguments`): an argument or input field called one of
 * `anyField` on any field, and the `id` argument of the fields in
 * `fieldsWithOtherArgumentName`. `variableNames`: top-level keys of `variables` read as
 * bots whether or not the document uses them (SPEC: "Bots are read from the botID
 * variable").
 */
export const BOT_ID_ARGUMENTS = {
  anyField: new Set(['botID', 'botId']) as ReadonlySet<string>,
  fieldsWithOtherArgumentName: new Map([
    ['bot', 'id'],
    ['botInstagramRefetchLatestMedias', 'id'],
    ['botInstagramMediaAdded', 'id'],
  ]) as ReadonlyMap<string, string>,
  variableNames: ['botID', 'botId'] as readonly string[],
  /** A variable declared with this type is a bot wherever it is used. */
  declaredType: 'BotID',
} as const;

/**
 * The four social-account publish fields that get slowTimeoutMs instead of timeoutMs
 * (SPEC step 21, facts `slowFields`).
 */
export const SLOW_FIELDS: ReadonlySet<string> = new Set([
  'instagramAccountPublishImage',
  'instagramAccountPublishReel',
  'instagramAccountPublishStory',
  'instagramAccountPublishCarousel',
]);

/**
 * When an argument or input field carries a resource id (SPEC "Resource fence", facts
 * `resourceIdArguments`).
 *
 * `excludedFieldArguments` honours facts `excludedWhenDeclaredTypeIs` without loading the
 * schema at run time: it lists the (field, argument) pairs of `schema.graphql` whose
 * declared type is one of those types and whose name the name rules would otherwise
 * accept (only `workspace(id: WorkspaceID!)`; the bot fields' `id` are bots, every other
 * such argument is already excluded by name). A variable declared with one of
 * `excludedDeclaredTypes` is also never read as a resource id (the upstream validates that
 * a variable's type matches its argument's).
 */
export const RESOURCE_ID_ARGUMENTS = {
  nameEquals: new Set(['id']) as ReadonlySet<string>,
  nameSuffix: /(ID|Id)s?$/,
  extraNames: new Set([
    'attachment',
    'before',
    'documents',
    'files',
    'goodsServices',
    'images',
    'logo',
    'setInheritFrom',
    'wabaIDHint',
  ]) as ReadonlySet<string>,
  excludedNames: new Set([
    'botID',
    'botId',
    'assigneeID',
    'targetWorkspaceID',
    'userID',
    'workspaceID',
  ]) as ReadonlySet<string>,
  excludedDeclaredTypes: new Set([
    'BotID',
    'UserAccountID',
    'WorkspaceID',
    'WorkspaceTeamMemberID',
  ]) as ReadonlySet<string>,
  excludedFieldArguments: new Map([['workspace', 'id']]) as ReadonlyMap<string, string>,
  /** A resource id: 24 hex characters, any case (normalised to lowercase). */
  valuePattern: /^[0-9a-fA-F]{24}$/,
} as const;

/** Whether an argument or input field name carries resource ids (names only). */
export function isResourceArgumentName(name: string): boolean {
  const r = RESOURCE_ID_ARGUMENTS;
  if (r.excludedNames.has(name)) return false;
  return r.nameEquals.has(name) || r.extraNames.has(name) || r.nameSuffix.test(name);
}

/**
 * The analysis ceilings (SPEC "Limits", facts `resourceIdArguments.limits`).
 *
 * - `maxResourcesPerRequest`: distinct resource ids one document (or one batch) may name;
 *   more is 400 ProxyMalformedQuery.
 * - `maxVariableNodesWalked`: values (JSON nodes of `variables`, and literal AST values)
 *   walked per entry; more is 400 ProxyMalformedQuery.
 * - `maxSelectionDepth`: nesting of fields, fragments included; deeper is 400
 *   ProxyMalformedQuery.
 */
export interface AnalysisLimits {
  maxResourcesPerRequest: number;
  maxVariableNodesWalked: number;
  maxSelectionDepth: number;
}

/** Default analysis ceilings (see {@link AnalysisLimits}). */
export const ANALYSIS_LIMITS: Readonly<AnalysisLimits> = Object.freeze({
  maxResourcesPerRequest: DEFAULTS.resourceIdsPerRequest,
  maxVariableNodesWalked: 10_000,
  maxSelectionDepth: 256,
});

/**
 * Upstream error rewriting (SPEC "Error envelope", facts `upstreamMessageScrub`): a message
 * containing `trigger` is replaced by `replacementMessage`; an entry without any code gets
 * `replacementCode`.
 */
export const UPSTREAM_MESSAGE_SCRUB = {
  trigger: 'ubgraph',
  replacementMessage: 'The upstream service rejected the request.',
  replacementCode: 'UpstreamServiceError',
} as const;
