/**
 * The graphql-transport-ws relay: `createRelay(deps)` → {@link Relay}.
 *
 * Implements SPEC "Route table" (WS row), "Events", "WebSocket close codes" and the socket rows
 * of "Limits" as a transport-agnostic core: hosts upgrade the socket (Deno.upgradeWebSocket,
 * or `ws` with noServer), ask {@link Relay.admitUpgrade} first (503 past wsMaxSockets or
 * wsPreAuthSockets), then hand the adapted socket to {@link Relay.accept}. Host and origin
 * checks (plain HTTP 403) and the path/subprotocol match (`upgrade.ts`) come before, in the
 * host and the HTTP core.
 */
import { DEFAULTS } from '../config/defaults.ts';
import { redactText } from '../http/token_redaction.ts';
import { Connection } from './connection.ts';
import type { ConnectionContext, RelayedConnection } from './connection_context.ts';
import { CLOSE } from './close_codes.ts';
import { newCounters } from './counters.ts';
import { relayLimits } from './limits.ts';
import type { Relay, RelayDeps } from './types.ts';
import { openWsUpstream } from './ws_socket.ts';

/** Upgrade refusal sentences (plain HTTP 503 bodies). */
const REFUSAL = {
  closing: 'The relay is shutting down',
  sockets: 'Too many open sockets',
  preAuth: 'Too many sockets waiting for admission',
  memory: 'The gateway is short of memory; try again shortly',
} as const;

/** The retry-after of a busy refusal, seconds (SPEC "Size and capacity", ProxyBusy). */
const BUSY_RETRY_AFTER_S = DEFAULTS.busyRetryAfterSeconds;

/** How long `closeAll` waits for both legs of every socket to report closed, in ms. */
const CLOSE_ALL_WAIT_MS = 2_000;

/**
 * The master token as SPEC "Authentication" 1 reads it: absent, empty or containing
 * whitespace is missing (null).
 */
export function readToken(token: () => string | null): string | null {
  let value: string | null;
  try {
    value = token();
  } catch {
    return null;
  }
  return typeof value === 'string' && value !== '' && !/\s/.test(value) ? value : null;
}

/**
 * Builds the relay over injected dependencies (see {@link RelayDeps}). Never throws; every
 * refusal is an HTTP 503 from `admitUpgrade` or a close code on the socket.
 */
export function createRelay(deps: RelayDeps): Relay {
  const limits = relayLimits(deps.limits);
  const counters = newCounters();
  const active = new Set<RelayedConnection>();
  const lingering = new Set<RelayedConnection>();
  let closing = false;
  const token = () => readToken(deps.token);
  const log = (line: string) => {
    const secret = token();
    deps.log?.(redactText(line, secret));
  };
  const ctx: ConnectionContext = {
    deps,
    openUpstream: deps.openUpstream ?? openWsUpstream,
    limits,
    counters,
    now: deps.now ?? Date.now,
    log,
    token,
    finished(connection) {
      active.delete(connection);
      lingering.add(connection);
      void connection.gone.then(() => lingering.delete(connection));
    },
  };

  return {
    admitUpgrade() {
      if (closing) return { status: 503, reason: REFUSAL.closing };
      // a finished socket whose transport has not reported closed yet still holds a descriptor
      // and its buffers (Deno.upgradeWebSocket: a browser that never reads again keeps its closing
      // socket), so it counts against the process's ceiling until it has
      if (counters.sockets + lingering.size >= limits.wsMaxSockets) {
        return { status: 503, reason: REFUSAL.sockets };
      }
      if (counters.preAuth >= limits.wsPreAuthSockets) {
        return { status: 503, reason: REFUSAL.preAuth };
      }
      // past the memory pressure threshold (docs/operations.md "Memory"): the spec's busy answer
      if (deps.memory?.refuseSocket()) {
        return { status: 503, reason: REFUSAL.memory, retryAfterSeconds: BUSY_RETRY_AFTER_S };
      }
      return null;
    },
    accept(browser) {
      if (closing) return browser.close(CLOSE.goingAway.code, CLOSE.goingAway.reason);
      active.add(new Connection(browser, ctx));
    },
    stats() {
      const { heldFramesTotal: _total, ...live } = counters;
      return live;
    },
    totals() {
      return { heldFrames: counters.heldFramesTotal };
    },
    async closeAll(code = CLOSE.goingAway.code, reason = CLOSE.goingAway.reason) {
      closing = true;
      for (const connection of [...active]) connection.end(code, reason);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const cap = new Promise<void>((resolve) => timer = setTimeout(resolve, CLOSE_ALL_WAIT_MS));
      await Promise.race([Promise.all([...lingering].map((c) => c.gone)), cap]);
      clearTimeout(timer);
    },
  };
}
