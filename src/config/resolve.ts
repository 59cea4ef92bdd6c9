/**
 * resolveConfig: options, then environment, then defaults (SPEC "Options").
 */
import { createHash } from 'node:crypto';
import { CEILING_OPTIONS, DEFAULTS } from './defaults.ts';
import type { ConfigOptions, Env } from './options.ts';
import {
  ceiling,
  flag,
  hostOf,
  httpUrl,
  list,
  maskCredentials,
  normaliseOrigin,
  pathOption,
  text,
} from './parse.ts';
import type { AuthConfig, ConfigProblem, ResolvedConfig, ResourceFenceMode } from './resolved.ts';
import { resolveMemoryBudget } from './memory_budget.ts';

/** The master token: option token, else env[tokenEnv]; whitespace anywhere means missing (SPEC "Authentication" 1). */
export function resolveToken(options: ConfigOptions, env: Env, tokenEnv: string): string | null {
  const raw = options.token !== undefined ? options.token : env[tokenEnv];
  if (raw === undefined || raw === '' || /\s/.test(raw)) return null;
  return raw;
}

function resolveAuth(options: ConfigOptions, env: Env): AuthConfig {
  const given = options.auth;
  const cacheTtlMs = ceiling(given ? given.cacheTtlMs : undefined, DEFAULTS.authCacheTtlMs);
  const rpcName = text(given ? given.rpcName : undefined) ?? DEFAULTS.authRpcName;
  if (given === false) return { state: 'off', cacheTtlMs, rpcName };
  const url = text(given?.url ?? env.CLIENT_BACKEND_URL)?.replace(/\/+$/, '');
  const anonKey = text(given?.anonKey ?? env.CLIENT_BACKEND_ANON_KEY);
  const serviceRoleKey = text(given?.serviceRoleKey ?? env.BACKEND_SERVICE_ROLE_KEY);
  const base = { url, anonKey, serviceRoleKey, cacheTtlMs, rpcName };
  if (given && url && anonKey) return { state: 'on', ...base };
  if (url && anonKey) return { state: 'on', ...base };
  if (!url && !anonKey && !given) return { state: 'off', ...base };
  return { state: 'misconfigured', ...base };
}

function resolveFenceMode(value: string | undefined, gateOn: boolean): ResourceFenceMode {
  const v = text(value)?.toLowerCase();
  if (v === 'off' || v === 'bound' || v === 'strict') return v;
  return gateOn ? 'bound' : 'off';
}

function resolveAllowlist(options: ConfigOptions, env: Env, gateOn: boolean): boolean {
  const given = options.operationAllowlist ?? env.SVC_OPERATION_ALLOWLIST;
  const v = typeof given === 'boolean' ? (given ? 'on' : 'off') : text(given)?.toLowerCase();
  if (v === 'on') return true;
  if (v === 'off') return gateOn ? !flag(env.SVC_OPERATION_ALLOWLIST_OFF) : false;
  return gateOn;
}

function resolveHosts(
  options: ConfigOptions,
  env: Env,
  origins: readonly string[],
  publicUrl: string | undefined,
  loopbackOnly: boolean,
): readonly string[] | null {
  const given = options.allowedHosts ?? env.ALLOWED_HOSTS;
  if (given === true) return null;
  const named = list(given).map((h) => h.toLowerCase());
  if (named.includes('*')) return null;
  const derived = [...origins, ...(publicUrl ? [publicUrl] : [])]
    .map(hostOf)
    .filter((h): h is string => h !== undefined);
  const hosts = [...new Set([...named, ...derived])];
  if (hosts.length === 0 && !loopbackOnly) return null;
  return hosts;
}

function outboundProxy(env: Env): string | undefined {
  const raw = text(env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy);
  return raw ? maskCredentials(raw) : undefined;
}

function adminSalt(options: ConfigOptions, env: Env, token: string | null, auth: AuthConfig) {
  const given = text(options.adminCookieSalt ?? env.ADMIN_COOKIE_SALT);
  if (given) return given;
  const digest = createHash('sha256').update(`${token ?? ''}\n${auth.url ?? ''}`).digest('hex');
  return digest.slice(0, 32);
}

function adminThrottle(options: ConfigOptions) {
  const given = options.adminThrottle ?? {};
  const count = (v: unknown, fallback: number) =>
    typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback;
  return {
    freeAttempts: Math.max(
      1,
      Math.floor(count(given.freeAttempts, DEFAULTS.adminThrottleFreeAttempts)),
    ),
    baseWaitMs: count(given.baseWaitMs, DEFAULTS.adminThrottleBaseWaitMs),
    capMs: count(given.capMs, DEFAULTS.adminThrottleCapMs),
    pauseMs: count(given.pauseMs, DEFAULTS.adminAttemptPauseMs),
  };
}

function ceilings(options: ConfigOptions, env: Env) {
  const out: Record<string, number> = {};
  for (const [name, variable] of CEILING_OPTIONS) {
    out[name] = ceiling(options[name] ?? (variable ? env[variable] : undefined), DEFAULTS[name]);
  }
  // JSON nesting: whole levels, at most the depth every rebuild is safe at (defaults.ts)
  out.jsonMaxDepth = Math.min(Math.max(1, Math.floor(out.jsonMaxDepth)), DEFAULTS.jsonDepthHardMax);
  return out as Record<(typeof CEILING_OPTIONS)[number][0], number>;
}

function problemsOf(c: Omit<ResolvedConfig, 'problems' | 'refusal'>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (c.token === null) problems.push('ProxyTokenMissing');
  if (c.auth.state === 'misconfigured') problems.push('ProxyAuthMisconfigured');
  const wouldProvision = c.auth.state === 'on' && c.auth.serviceRoleKey !== undefined;
  if (wouldProvision && !c.workspaceId) problems.push('ProxyWorkspaceMissing');
  if (c.admin.state === 'misconfigured') problems.push('ProxyAdminPasswordWeak');
  return problems;
}

function refusalOf(c: Omit<ResolvedConfig, 'problems' | 'refusal'>): string | undefined {
  if (c.anyOrigin && c.auth.state !== 'on') {
    return "ALLOWED_ORIGINS='*' without the session gate would let any site spend the master token";
  }
  if (c.auth.state === 'off' && !c.loopbackOnly && !c.openProxyAcknowledged) {
    return 'open mode (no session gate) on a non-loopback host; set SVC_OPEN_PROXY=1 to acknowledge';
  }
  return undefined;
}

/**
 * Resolves options over environment over defaults into one frozen object.
 * Never throws for bad values: a bad ceiling gives its default, a bad URL is
 * dropped, and problems are listed in `problems` (SPEC "Startup behaviour").
 */
export function resolveConfig(options: ConfigOptions = {}, env: Env = {}): ResolvedConfig {
  const tokenEnv = text(options.tokenEnv) ?? DEFAULTS.tokenEnv;
  const token = resolveToken(options, env, tokenEnv);
  const auth = resolveAuth(options, env);
  const gateOn = auth.state === 'on';
  const originList = list(options.allowedOrigins ?? env.ALLOWED_ORIGINS).map(normaliseOrigin);
  const anyOrigin = originList.includes('*');
  const allowedOrigins = originList.filter((o) => o !== '*');
  const publicUrl = httpUrl(options.publicUrl ?? env.PUBLIC_URL);
  const loopbackOnly = options.loopbackOnly === true;
  const resourceFence = resolveFenceMode(options.resourceFence ?? env.SVC_RESOURCE_FENCE, gateOn);
  const storeSetting = text(options.resourceStore ?? env.SVC_RESOURCE_STORE)?.toLowerCase();
  const adminPassword = options.adminPassword ?? env.ADMIN_PASSWORD;
  const bucket = text(options.mediaBucket ?? env.PUBLISHING_MEDIA_BUCKET);
  const httpPath = pathOption(options.httpPath, DEFAULTS.httpPath);
  const fence = options.fence ?? {};
  const base = {
    upstream: (text(options.upstream ?? env.SVC_API_BASE) ?? DEFAULTS.upstream).replace(/\/+$/, ''),
    healthPath: DEFAULTS.healthPath,
    metricsPath: DEFAULTS.metricsPath,
    httpPath,
    wsPath: pathOption(options.wsPath, httpPath),
    apiPath: pathOption(options.apiPath, DEFAULTS.apiPath),
    authPath: pathOption(options.authPath, DEFAULTS.authPath),
    publishingPath: pathOption(options.publishingPath, DEFAULTS.publishingPath),
    adminPath: pathOption(options.adminPath, DEFAULTS.adminPath),
    tokenEnv,
    token,
    workspaceId: text(options.workspaceId ?? env.SVC_WORKSPACE_ID),
    allowedBotIds: options.allowedBotIds === 'any'
      ? 'any' as const
      : options.allowedBotIds
      ? Object.freeze([...options.allowedBotIds])
      : null,
    fence: token === null ? null : {
      ttlMs: ceiling(fence.ttlMs, DEFAULTS.fenceTtlMs),
      retryMs: ceiling(fence.retryMs, DEFAULTS.fenceRetryMs),
      timeoutMs: ceiling(fence.timeoutMs, DEFAULTS.fenceTimeoutMs),
    },
    auth,
    ...ceilings(options, env),
    memoryBudget: resolveMemoryBudget(options.memoryBudgetBytes ?? env.MEMORY_BUDGET_BYTES),
    allowedOrigins,
    anyOrigin,
    allowedHosts: resolveHosts(options, env, allowedOrigins, publicUrl, loopbackOnly),
    loopbackOnly,
    resourceFence,
    resourceStore: resourceFence !== 'off' && auth.serviceRoleKey !== undefined &&
      storeSetting !== 'off',
    sharedLimits: auth.url !== undefined && auth.serviceRoleKey !== undefined &&
      text(options.sharedLimits ?? env.SVC_SHARED_LIMITS)?.toLowerCase() !== 'off',
    operationAllowlist: resolveAllowlist(options, env, gateOn),
    operationAllowlistExtra: list(
      options.operationAllowlistExtra ?? env.SVC_OPERATION_ALLOWLIST_EXTRA,
    ),
    operations: options.operations ? Object.freeze([...options.operations]) : undefined,
    admin: {
      state: adminPassword === undefined || adminPassword === ''
        ? 'off' as const
        : adminPassword.length >= DEFAULTS.adminPasswordMinLength
        ? 'on' as const
        : 'misconfigured' as const,
      password: adminPassword || undefined,
      cookieSalt: adminSalt(options, env, token, auth),
      homeWorkspaceId: text(options.workspaceId ?? env.SVC_WORKSPACE_ID) ??
        text(env.CLIENT_SVC_WORKSPACE_ID),
      throttle: adminThrottle(options),
    },
    trustForwardedFor: flag(options.trustForwardedFor ?? env.TRUST_FORWARDED_FOR),
    recoveryLinkLogging: flag(options.recoveryLinkLogging ?? env.AUTH_RECOVERY_LINK_LOG),
    publishingSecret: text(options.publishingSecret ?? env.PUBLISHING_SECRET),
    bypassSecret: text(options.bypassSecret ?? env.HOST_AUTOMATION_BYPASS_SECRET),
    mediaBucket: bucket && /^[A-Za-z0-9._-]+$/.test(bucket) ? bucket : DEFAULTS.mediaBucket,
    publicUrl,
    metrics: metricsConfig(options, env),
    logFormat: logFormat(options, env),
    otlpEndpoint: text(env.OTEL_EXPORTER_OTLP_ENDPOINT),
    openProxyAcknowledged: text(env.SVC_OPEN_PROXY) === '1',
    outboundProxy: outboundProxy(env),
  };
  const config: ResolvedConfig = { ...base, problems: problemsOf(base), refusal: refusalOf(base) };
  return Object.freeze(config);
}

/** METRICS=1 (loopback callers) or METRICS_TOKEN (bearer from every caller) turn metrics on. */
function metricsConfig(options: ConfigOptions, env: Env): ResolvedConfig['metrics'] {
  const token = text(options.metricsToken ?? env.METRICS_TOKEN);
  return { enabled: token !== undefined || flag(options.metrics ?? env.METRICS), token };
}

/** LOG_FORMAT=json (any case) gives JSON lines; anything else the human lines. */
function logFormat(options: ConfigOptions, env: Env): 'text' | 'json' {
  return text(options.logFormat ?? env.LOG_FORMAT)?.toLowerCase() === 'json' ? 'json' : 'text';
}
