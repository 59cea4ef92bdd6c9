/**
 * Steps 1 to 9 of SPEC "Order in which a GraphQL body is checked": the
 * transport, the gate seam, capacity and the shape of the body.
 */
import { DEFAULTS } from '../config/defaults.ts';
import { refusal } from '../http/error_codes.ts';
import { readCappedText } from '../http/body.ts';
import { nestsDeeperThan, tooDeepSentence } from '../http/json_depth.ts';
import type { Step } from './chain.ts';
import { checkBatchSize, checkNoExtensions, parseBody, parsePayload } from './entries.ts';
import type { GraphqlState as S } from './graphql_state.ts';
import { busy, memoryBusy } from '../http/busy.ts';
import { tenantBusy } from './tenants.ts';

/** Step 1: 415 UnsupportedMediaType unless application/json (absent is refused). */
export const contentType: Step<S> = {
  step: 1,
  check: 'content type is application/json',
  run(s) {
    const type = s.request?.headers.get('content-type') ?? '';
    if (type.split(';')[0].trim().toLowerCase() === 'application/json') return null;
    return refusal('UnsupportedMediaType', 'Send the body as application/json');
  },
};

/** Step 2: the gate admits the bearer (gate off: everyone; misconfigured: 500). */
export const gate: Step<S> = {
  step: 2,
  check: 'gate, with the session module',
  async run(s) {
    const verdict = await s.core.gate.admit(s.request?.headers.get('authorization') ?? null);
    if ('refused' in verdict) return verdict.refused;
    s.session = verdict.session;
    return null;
  },
};

/** Step 3: 500 ProxyTokenMissing. */
export const token: Step<S> = {
  step: 3,
  check: 'a master token exists',
  run: (s) =>
    s.core.config.token === null
      ? refusal('ProxyTokenMissing', 'The service proxy has no master token configured')
      : null,
};

/**
 * Step 4: the tenant has requests left this minute, else 429 TenantBusy (retry-after: 5). One
 * request (a batch counts once; on the socket, one subscribe) takes one token from the bucket
 * of the session's tenant; a session without a tenant (no fence) is not limited.
 */
export const tenantBudget: Step<S> = {
  step: 4,
  check: 'tenant has requests left this minute',
  run(s) {
    const key = s.session?.tenantKey;
    if (key === undefined || key === null) return null;
    const taken = s.core.tenants.takeRequest(key);
    if (taken === true) return null;
    if (taken === false) return tenantBusy();
    return taken.then((ok) => ok ? null : tenantBusy());
  },
};

/**
 * Step 5: counted from admission to the upstream answer (the route runs the release). A process
 * past its memory budget answers the same 503 ProxyBusy (docs/operations.md "Memory").
 */
export const concurrency: Step<S> = {
  step: 5,
  check: 'fewer than graphqlMaxConcurrent in flight',
  run(s) {
    if (s.core.memory?.refuseRequest()) return memoryBusy();
    const release = s.core.graphqlInFlight.tryAcquire();
    if (!release) return busy('GraphQL requests');
    s.releases.push(release);
    return null;
  },
};

/** Step 6: 413 RequestTooLarge past 2 MiB (the oversize rule). */
export const bodySize: Step<S> = {
  step: 6,
  check: 'body under 2 MiB',
  async run(s) {
    const read = await readCappedText(s.request!, s.requestState!, DEFAULTS.graphqlBodyBytes);
    if ('refused' in read) return read.refused;
    s.text = read.text;
    return null;
  },
};

/**
 * Step 7: 400 ProxyMalformedQuery (a socket payload is one entry). A body nested deeper than
 * jsonMaxDepth is not JSON the gateway reads: refused before it is parsed (src/http/json_depth.ts;
 * the socket measures the whole frame before this step, src/ws/frames.ts).
 */
export const bodyShape: Step<S> = {
  step: 7,
  check: 'JSON with a string query in every entry',
  run(s) {
    const max = s.core.config.jsonMaxDepth;
    if (s.request && nestsDeeperThan(s.text ?? '', max)) {
      s.text = undefined;
      return refusal('ProxyMalformedQuery', tooDeepSentence('The body', max));
    }
    const parsed = s.request ? parseBody(s.text ?? '') : parsePayload(s.payload);
    s.text = undefined;
    if ('code' in parsed) return parsed;
    s.body = parsed;
    return null;
  },
};

/** Step 8: 413 BatchTooLarge. */
export const batchSize: Step<S> = {
  step: 8,
  check: 'at most graphqlMaxBatch entries',
  run: (s) => checkBatchSize(s.body!, s.core.config.graphqlMaxBatch),
};

/** Step 9: 400 ProxyExtensionsUnsupported. */
export const extensions: Step<S> = {
  step: 9,
  check: 'no entry carries extensions',
  run: (s) => checkNoExtensions(s.body!),
};
