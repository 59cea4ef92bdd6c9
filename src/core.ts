/**
 * The pieces a request handler reads, built once per proxy by createSvcProxy.
 */
import type { ResolvedConfig } from './config/resolved.ts';
import type { BotFence } from './admission/bot_fence.ts';
import type { Gate } from './admission/gate.ts';
import type { InFlight } from './admission/in_flight.ts';
import type { ResourceFence } from './admission/resource_fence.ts';
import type { ResourceStore } from './admission/resource_store.ts';
import type { Tenants } from './admission/tenants.ts';
import type { Registry } from './graphql/mod.ts';
import type { Logger } from './observability/log.ts';
import type { Tracing } from './observability/tracing.ts';
import type { Metrics } from './observability/metrics.ts';
import type { PostText } from './upstream/outbound.ts';
import type { Revocations } from './admission/revocations.ts';
import type { UpstreamFactory } from './ws/mod.ts';
import type { MemoryAccountant } from './memory/accountant.ts';

/** Everything shared by the routes of one proxy instance. */
export interface Core {
  readonly config: ResolvedConfig;
  /** The fetch used for every outbound HTTP call (the host's proxy-aware one). */
  readonly fetch: typeof fetch;
  /** The GraphQL forward's transport (the host's, else one over `fetch`). */
  readonly postText: PostText;
  /** The relay's upstream leg where no outbound proxy applies (the host's, else the ws client). */
  readonly upstreamSocket: UpstreamFactory;
  readonly log: (line: string) => void;
  /** The log: human lines, and access lines in the json format (docs/operations.md "Logs"). */
  readonly logger: Logger;
  /** Traces; null unless OTEL_EXPORTER_OTLP_ENDPOINT (docs/operations.md "Traces"). */
  readonly tracing: Tracing | null;
  /** The metrics registry; null when metrics are off (docs/operations.md "Metrics"). */
  readonly metrics: Metrics | null;
  readonly gate: Gate;
  /** The process's memory accountant (docs/operations.md "Memory"); null with the budget off. */
  readonly memory: MemoryAccountant | null;
  readonly graphqlInFlight: InFlight;
  readonly restInFlight: InFlight;
  readonly botFence: BotFence;
  readonly resourceFence: ResourceFence;
  /** The resource fence's shared store; null when off (SPEC "Resource fence", shared store). */
  readonly resourceStore: ResourceStore | null;
  /** Per-tenant request buckets and socket counts (SPEC "Ceilings", tenant rows). */
  readonly tenants: Tenants;
  /** Document registry; null when `operations` was omitted. */
  readonly registry: Registry | null;
  /** Live sockets by account, for the admin panel's revoke (4401). */
  readonly revocations: Revocations;
  /** Allowed root fields; null when the allowlist is off. */
  readonly allowlist: ReadonlySet<string> | null;
}
