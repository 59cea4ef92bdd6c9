/**
 * The startup report: configuration problems by variable name, the one
 * resolved-configuration line, and the REFUSING TO SERVE / WARNING lines.
 * SPEC "Startup behaviour and hosts". No secret value is ever printed.
 */
import { DEFAULTS } from './defaults.ts';
import type { ConfigProblem, ResolvedConfig } from './resolved.ts';

/** Which variable each problem is about (the only thing printed of it). */
const PROBLEM_VARIABLES: Record<ConfigProblem, (c: ResolvedConfig) => string> = {
  ProxyTokenMissing: (c) => `${c.tokenEnv} is unset or contains whitespace`,
  ProxyAuthMisconfigured: () =>
    'only one of CLIENT_BACKEND_URL and CLIENT_BACKEND_ANON_KEY is set (the gate fails closed)',
  ProxyWorkspaceMissing: () =>
    'SVC_WORKSPACE_ID is unset (sign-up provisioning cannot create bots)',
  ProxyAdminPasswordWeak: () => 'ADMIN_PASSWORD is shorter than 16 characters',
};

/** Route groups mounted under this configuration (SPEC "Route table", "Mounted" column). */
export function mountedRoutes(c: ResolvedConfig): string[] {
  const routes = ['graphql', 'ws', 'api'];
  const backendAdmin = c.auth.state === 'on' && c.auth.serviceRoleKey !== undefined;
  if (backendAdmin) routes.push('auth', 'recovery-link', 'publishing');
  if (c.admin.state !== 'off') routes.push('admin');
  return routes;
}

/** Facts the core knows only after building its pieces. */
export interface StartupFacts {
  /** Allowlist size, or null when the allowlist is off. */
  allowlistSize: number | null;
  /** Registry document count, or null without a registry. */
  registrySize: number | null;
}

/** `n` and the noun, plural unless n is 1: "1 bot", "2 bots". */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The one resolved-configuration line. */
export function configurationLine(c: ResolvedConfig, facts: StartupFacts): string {
  const parts = [
    `gate ${c.auth.state} (routes: ${mountedRoutes(c).join(', ')})`,
    `resource fence ${c.resourceFence}${c.resourceStore ? ' with shared store' : ''}`,
    `tenant limits ${c.sharedLimits ? 'shared (backend)' : 'per-process'}`,
    `bot fence ${
      c.allowedBotIds === 'any'
        ? 'off (any)'
        : c.allowedBotIds
        ? `frozen (${count(c.allowedBotIds.length, 'bot')})`
        : 'request-time'
    }`,
    `allowed origins ${c.anyOrigin ? "'*'" : c.allowedOrigins.length}`,
    facts.allowlistSize === null ? 'allowlist OFF' : `allowlist ${facts.allowlistSize} fields`,
    facts.registrySize === null ? 'NO REGISTRY' : `registry ${facts.registrySize} documents`,
    `admin panel ${c.admin.state}`,
    `metrics ${c.metrics.enabled ? (c.metrics.token ? 'on (token)' : 'on') : 'off'}`,
    `upstream ${c.upstream}`,
    `outbound proxy ${c.outboundProxy ?? 'none'}`,
    c.memoryBudget.bytes === null
      ? 'memory budget OFF'
      : `memory budget ${c.memoryBudget.bytes} bytes (${c.memoryBudget.source})`,
  ];
  if (c.anyOrigin) parts.push("WARNING: allowed origins contain '*'");
  return `svc-gateway: ${parts.join('; ')}`;
}

/**
 * Every line a host prints at startup, in order: one line per problem, the configuration line, a
 * WARNING when the upstream is the built-in placeholder (SVC_API_BASE unset), then a REFUSING TO
 * SERVE line or an open-mode WARNING.
 */
export function startupLines(c: ResolvedConfig, facts: StartupFacts): string[] {
  const lines = c.problems.map((p) =>
    `svc-gateway: configuration problem ${p}: ${PROBLEM_VARIABLES[p](c)}`
  );
  lines.push(configurationLine(c, facts));
  if (c.upstream === DEFAULTS.upstream) {
    // the built-in upstream answers nothing: every forwarded request would wait out its deadline
    lines.push(
      `WARNING: SVC_API_BASE (option upstream) is unset: requests go to ${DEFAULTS.upstream}, which answers nothing; set it to the platform's API base URL`,
    );
  }
  if (c.refusal) lines.push(`REFUSING TO SERVE: ${c.refusal}`);
  else if (c.auth.state === 'off' && !c.loopbackOnly) {
    lines.push(
      'WARNING: open mode acknowledged (SVC_OPEN_PROXY=1): anyone who reaches this host spends the master token',
    );
  }
  return lines;
}
