/**
 * One relayed browser socket, from upgrade to close.
 *
 * Implements SPEC "Route table" (WS row), "Events" 1-5 and the socket rows of "Limits":
 * the first frame must be connection_init (else 4401), within wsInitTimeoutMs (else 4408);
 * its payload goes to the gate and no further; only an admitted socket opens the upstream leg
 * (no master token: 4401). Later frames are validated (4400), held in order while the upstream
 * is not ready or a subscribe check is pending, and re-serialised. The socket lives at most
 * socketLifeMs or until the session's exp (1012). Finishing clears every timer and counter.
 *
 * With a memory accountant (docs/operations.md "Memory"), the socket's account holds its unsent
 * bytes both ways (as flow control last read them), its held frames and the upstream frame in
 * hand (while it is parsed and re-serialised; socket_memory.ts); a
 * connection_init under memory pressure closes 1013 ProxyBusy, and the accountant may shed the
 * socket (1013, `CLOSE.memoryShed`).
 */
import { DEFAULTS } from '../config/defaults.ts';
import { CLOSE, safeCloseReason } from './close_codes.ts';
import { SocketTimers } from './counters.ts';
import {
  type BrowserMessage,
  type JsonObject,
  parseBrowserFrame,
  serialiseSignal,
} from './frames.ts';
import { type FlowDirection, type FlowOwner, type StallCause, startFlowPair } from './flow.ts';
import { Heartbeat, type HeartbeatPeer, type HeartbeatSlots } from './heartbeat.ts';
import { InboundQueue } from './inbound.ts';
import type { RelaySocket, SocketListener } from './socket.ts';
import { type BrowserSink, type CheckOutcome, Subscriptions } from './subscriptions.ts';
import type { AdmittedSession } from './types.ts';
import { SocketMemory } from './socket_memory.ts';
import {
  askGate,
  type ConnectionContext,
  lifeUnderSession,
  type RelayedConnection,
  releaseSession,
} from './connection_context.ts';
import { type CloseSpec, UpstreamLeg, type UpstreamLegEvents } from './upstream_leg.ts';
import type { UpstreamMessage } from './frames.ts';

/** The browser heartbeat's timer slots. */
const KEEPALIVE: HeartbeatSlots = { silence: 'browserKeepalive', pong: 'browserPong' };

/**
 * 'upstreamGone': the upstream leg ended while subscribes were held or being checked; they are
 * still checked (in order) before the socket closes with the leg's close.
 */
type State = 'awaitingInit' | 'admitting' | 'opening' | 'ready' | 'upstreamGone' | 'closed';

/**
 * One browser socket and, once admitted, its upstream leg. It is the listener of its browser
 * socket and of its own parts (the leg's events, both heartbeats' and flow directions' owner, the
 * subscriptions' sink, the memory accountant's sheddable socket), and its timers call shared
 * functions, so a socket holds no closure per part (docs/benchmarks.md "The relay's own objects
 * per idle socket").
 */
export class Connection
  implements
    RelayedConnection,
    SocketListener,
    UpstreamLegEvents,
    HeartbeatPeer,
    FlowOwner,
    BrowserSink {
  #state: State = 'awaitingInit';
  #browser: RelaySocket;
  #ctx: ConnectionContext;
  #timers: SocketTimers;
  #queue: InboundQueue;
  #subs: Subscriptions;
  #leg: UpstreamLeg | null = null;
  #session: AdmittedSession | null = null;
  #token: string | null = null;
  #preAuth = true;
  #checking = false;
  #upstreamClose: CloseSpec | null = null;
  #acceptedAt: number;
  #browserEnded = false;
  /** Made only when something waits for both legs to close (see {@link gone}). */
  #gone: { promise: Promise<void>; resolve: () => void } | null = null;
  #browserBeat: Heartbeat | null = null;
  /** Flow control, once the upstream leg exists: upstream → browser, browser → upstream. */
  #down: FlowDirection | null = null;
  #up: FlowDirection | null = null;
  /** The socket's memory account (null without an accountant). */
  #account: SocketMemory | null = null;

  /** Takes over an upgraded browser socket; counts it and starts the init and life timers. */
  constructor(browser: RelaySocket, ctx: ConnectionContext) {
    this.#browser = browser;
    this.#ctx = ctx;
    const { limits, counters } = ctx;
    this.#timers = new SocketTimers(counters);
    this.#queue = new InboundQueue(counters, limits);
    this.#subs = new Subscriptions(counters, this, ctx);
    this.#acceptedAt = ctx.now();
    const memory = ctx.deps.memory;
    if (memory) this.#account = new SocketMemory(memory, this, this.#queue);
    counters.sockets++;
    counters.preAuth++;
    browser.listen(this);
    this.#timers.once('init', limits.wsInitTimeoutMs, Connection.#initTimedOut, this);
    this.#timers.once('life', limits.socketLifeMs, Connection.#lifeEnded, this);
    this.#keepBrowserAlive();
  }

  /** No connection_init within wsInitTimeoutMs: 4408 (one function for every socket). */
  static #initTimedOut(connection: Connection): void {
    connection.#finish(CLOSE.initTimeout);
  }

  /** The socket's life (socketLifeMs, or the session's exp) is over: 1012. */
  static #lifeEnded(connection: Connection): void {
    connection.#finish(CLOSE.deadline);
  }

  /** Resolves once both legs reported closed (the browser's, and the upstream's if opened). */
  get gone(): Promise<void> {
    if (this.#legsClosed()) return Promise.resolve();
    if (this.#gone === null) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => resolve = r);
      this.#gone = { promise, resolve };
    }
    return this.#gone.promise;
  }

  #legsClosed(): boolean {
    return this.#browserEnded && (this.#leg === null || this.#leg.isClosed);
  }

  /** A leg reported closed: whoever waits on {@link gone} is told once both have. */
  #legClosed(): void {
    if (this.#gone !== null && this.#legsClosed()) this.#gone.resolve();
  }

  /** The browser socket closed, from either side (SocketListener). */
  socketClosed(): void {
    this.#browserEnded = true;
    this.#legClosed();
    this.#finish(CLOSE.goingAway);
  }

  /** The upstream socket closed or could not be opened (UpstreamLegEvents). */
  upstreamClosed(): void {
    this.#legClosed();
  }

  /** A WebSocket-level pong from the browser (SocketListener). */
  socketPong(): void {
    this.#browserBeat?.alive();
  }

  /** Ends the socket from outside (host shutdown, revocation). */
  end(code: number, reason: string): void {
    this.#finish({ code, reason });
  }

  /**
   * WebSocket-level keepalive toward the browser, where the transport can ping and drop
   * (docs/operations.md "Slow and vanished peers on the relay"): a browser silent wsPingIntervalMs
   * is pinged, and terminated when nothing comes back within wsPongTimeoutMs; its counts are
   * released at once. Not while its reading is paused (the pong could not be read). Deno's upgraded
   * socket does this itself (idleTimeout).
   */
  #keepBrowserAlive(): void {
    const b = this.#browser;
    if (!b.ping || !b.terminate) return;
    const beat = this.#browserBeat = new Heartbeat(
      this.#timers,
      KEEPALIVE,
      this.#ctx.limits,
      this.#ctx.now,
      this,
    );
    beat.start();
  }

  /** Pings the browser, unless its reading is paused (HeartbeatPeer). */
  keepalivePing(): boolean {
    if (this.#up?.paused) return false;
    this.#browser.ping!();
    return true;
  }

  /** The browser missed its pong wait: terminated, its counts released (HeartbeatPeer). */
  keepaliveDead(): void {
    this.#finish(CLOSE.goingAway, true);
  }

  /** Over the memory budget and holding the most: closed 1013 (the accountant's sheddable). */
  shed(): void {
    this.#ctx.log('ws relay: over the memory budget; the socket holding the most closed');
    this.#finish(CLOSE.memoryShed);
  }

  /**
   * Whether the socket is stuck, for the memory accountant: it holds browser frames (before the
   * upstream is ready or behind a pending check), or its browser has not read for
   * `memoryStalledMs` (the upstream leg paused as long).
   */
  stalled(): boolean {
    if (this.#queue.length > 0) return true;
    const since = this.#down?.pausedAt ?? -1;
    return since >= 0 && this.#ctx.now() - since >= DEFAULTS.memoryStalledMs;
  }

  /** Tells the memory accountant what the socket holds now. */
  #held(): void {
    this.#account?.report();
  }

  /** Sends one frame to the browser, then lets flow control read its unsent bytes (BrowserSink). */
  toBrowser(text: string): void {
    this.#browser.send(text);
    this.#down?.written();
  }

  /** Sends one frame upstream, then lets flow control read the leg's unsent bytes. */
  #sendUpstream(text: string): void {
    this.#leg!.send(text);
    this.#up?.written();
  }

  /** Flow control both ways (`flow.ts`; docs/operations.md "Slow and vanished peers on the relay"). */
  #startFlow(leg: UpstreamLeg): void {
    const ctx = this.#ctx;
    const { down, up } = startFlowPair(
      this.#browser,
      this.#browserBeat,
      leg,
      ctx,
      this.#timers,
      this,
      ctx.deps.memory ?? null,
      this.#account !== null,
    );
    this.#down = down;
    this.#up = up;
  }

  /** A direction's sink stalled: the socket closes 1013 toward the side not reading (FlowOwner). */
  flowStalled(direction: FlowDirection, cause: StallCause): void {
    const side = direction === this.#down ? 'browser' : 'upstream';
    this.#ctx.log(`ws relay: ${side} stalled (${cause}); socket closed`);
    try {
      this.#ctx.deps.stallClosed?.(side, cause);
    } catch { /* a metrics seam never stops the close */ }
    this.#finish(side === 'browser' ? CLOSE.browserStalled : CLOSE.upstreamStalled);
  }

  /** A direction read its sink's unsent bytes: the socket's account follows (FlowOwner). */
  flowMeasured(direction: FlowDirection, bytes: number): void {
    if (direction === this.#down) this.#account?.measuredDown(bytes);
    else this.#account?.measuredUp(bytes);
  }

  /** One browser frame (SocketListener). */
  socketMessage(text: string | null, bytes: number): void {
    if (this.#state === 'closed' || this.#state === 'upstreamGone') return;
    this.#browserBeat?.alive();
    if (bytes > this.#ctx.limits.browserFrameBytes) return this.#finish(CLOSE.frameTooLarge);
    const parsed = parseBrowserFrame(text, this.#ctx.limits.jsonMaxDepth);
    if (this.#state === 'awaitingInit') {
      if (!parsed.ok || parsed.message.type !== 'connection_init') {
        return this.#finish(CLOSE.unauthorized);
      }
      if (this.#ctx.deps.memory?.refuseSocket()) return this.#finish(CLOSE.memoryBusy);
      this.#timers.clear('init');
      this.#state = 'admitting';
      void this.#admit(parsed.message.payload);
      return;
    }
    if (!parsed.ok) return this.#finish({ code: CLOSE.badFrame.code, reason: parsed.reason });
    if (parsed.message.type === 'connection_init') {
      return this.#finish({
        code: CLOSE.badFrame.code,
        reason: 'Too many initialisation requests',
      });
    }
    const phase = this.#state === 'ready' ? 'behindLookup' : 'beforeUpstream';
    // every frame passes through the queue; one that cannot be taken at once (the upstream is
    // not ready, or a subscribe check is pending) is held, and counted as such
    if (this.#state !== 'ready' || this.#checking) this.#ctx.counters.heldFramesTotal++;
    const overflow = this.#queue.push({ message: parsed.message, bytes }, phase);
    if (overflow) return this.#finish(overflow);
    this.#held();
    this.#pump();
  }

  async #admit(initPayload: JsonObject | null): Promise<void> {
    const admission = await askGate(this.#ctx, initPayload);
    if (this.#state === 'closed') {
      // the socket ended while the gate decided: the session is given back at once
      if (admission.ok) releaseSession(this.#ctx, admission.session);
      return;
    }
    this.#leavePreAuth();
    if (!admission.ok) return this.#finish({ code: admission.closeCode, reason: admission.reason });
    const session = this.#session = admission.session;
    session.onRevoke?.((code, reason) => this.#finish({ code, reason }));
    const left = lifeUnderSession(this.#ctx, session.expiresAt, this.#acceptedAt);
    if (left !== null && left <= 0) return this.#finish(CLOSE.deadline);
    if (left !== null) this.#timers.once('life', left, Connection.#lifeEnded, this);
    this.#openUpstream();
  }

  #openUpstream(): void {
    const token = this.#token = this.#ctx.token();
    if (token === null) return this.#finish(CLOSE.tokenMissing);
    this.#state = 'opening';
    this.#leg = new UpstreamLeg(this.#ctx, this.#timers, this, this.#account);
    this.#startFlow(this.#leg);
    this.#leg.open(token);
  }

  /** The upstream acknowledged: the browser gets its connection_ack (UpstreamLegEvents). */
  upstreamReady(ackPayload: JsonObject | null): void {
    if (this.#state !== 'opening') return;
    this.#state = 'ready';
    this.toBrowser(serialiseSignal('connection_ack', ackPayload));
    this.#pump();
  }

  /** A validated upstream frame, to the subscriptions (UpstreamLegEvents). */
  upstreamMessage(message: UpstreamMessage): void {
    this.#subs.fromUpstream(message, this.#token);
  }

  /** A `next` frame from the fast path, to the subscriptions (UpstreamLegEvents). */
  upstreamNext(id: string, payloadJson: string, idJson: string, frame: string | null): void {
    this.#subs.nextFromUpstream(id, payloadJson, this.#token, idJson, frame);
  }

  /**
   * The upstream leg ended (its close row: 4000-4999 passed through, else 1012). SPEC "Order in
   * which a GraphQL body is checked": a subscribe's checks (steps 4-20) come before its forward
   * (21), first refusal wins; so subscribes already received (held before the upstream was
   * ready, or behind a pending check) are still checked, in order, and a check that closes the
   * socket (1013 ProxyFenceUnavailable, gate off) wins over the upstream's close. Then the
   * socket closes with the leg's close. Frames arriving meanwhile are dropped.
   */
  upstreamGone(close: CloseSpec): void {
    if (this.#state === 'closed') return;
    if (this.#queue.length === 0 && !this.#checking) return this.#finish(close);
    this.#state = 'upstreamGone';
    this.#upstreamClose = close;
    this.#pump();
  }

  /**
   * Handles held frames in order, stopping at a pending subscribe check. Once the upstream is
   * gone the frames are only checked (the leg ignores sends), and the socket closes when none
   * is left.
   */
  #pump(): void {
    while ((this.#state === 'ready' || this.#state === 'upstreamGone') && !this.#checking) {
      const item = this.#queue.shift();
      if (this.#account) this.#held();
      if (!item) {
        if (this.#state === 'upstreamGone') this.#finish(this.#upstreamClose!);
        return;
      }
      this.#toUpstream(item.message);
    }
  }

  #toUpstream(message: BrowserMessage): void {
    switch (message.type) {
      case 'ping':
      case 'pong':
        return this.#sendUpstream(serialiseSignal(message.type, message.payload));
      case 'complete': {
        const text = this.#subs.completeFromBrowser(message.id);
        if (text) this.#sendUpstream(text);
        return;
      }
      case 'subscribe':
        return this.#subscribe(message.id, message.payload);
    }
  }

  #subscribe(id: string, payload: JsonObject): void {
    const opened = this.#subs.open(id, this.#ctx.limits.subscriptionsPerSocket);
    if (opened === 'duplicate') {
      return this.#finish(CLOSE.duplicateSubscriber);
    }
    if (opened === 'full') return;
    const outcome = this.#subs.check(id, payload, this.#session!);
    if (!(outcome instanceof Promise)) return this.#settled(outcome);
    this.#checking = true;
    void outcome.then((settled) => {
      this.#checking = false;
      this.#settled(settled);
      this.#pump();
    });
  }

  /** Applies a subscribe's outcome (the refusal frame, if any, is already sent). */
  #settled(outcome: CheckOutcome): void {
    if (this.#state === 'closed') return;
    if (outcome.kind === 'close') return this.#finish(outcome.close);
    if (outcome.kind === 'forward') this.#sendUpstream(outcome.text);
  }

  #leavePreAuth(): void {
    if (!this.#preAuth) return;
    this.#preAuth = false;
    this.#ctx.counters.preAuth--;
  }

  /**
   * Ends the socket once: every timer, held frame and subscription given back, the upstream
   * closed 1000, the browser closed with `close` (reason cut and without the token) or, for
   * a dead browser, terminated; the session released.
   */
  #finish(close: CloseSpec, terminate = false): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    const { counters } = this.#ctx;
    this.#down?.stop();
    this.#up?.stop();
    this.#timers.clearAll();
    this.#queue.clear();
    this.#account?.close();
    this.#subs.clear();
    this.#leavePreAuth();
    counters.sockets--;
    this.#leg?.close();
    if (!this.#browserEnded && terminate) this.#browser.terminate!();
    else if (!this.#browserEnded) {
      const secret = this.#token ?? this.#ctx.token();
      this.#browser.close(close.code, safeCloseReason(close.reason, secret));
    }
    releaseSession(this.#ctx, this.#session);
    this.#ctx.finished(this);
  }
}
