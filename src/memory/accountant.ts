/**
 * The process's memory accountant (docs/operations.md "Memory"; not a spec rule; Envoy's overload
 * manager is the model): it adds up the bytes the gateway holds and acts at two named thresholds.
 *
 * Counted (`held`): each relayed socket's unsent bytes on both legs, its held browser frames and
 * the frame it is parsing and re-serialising (one {@link SocketAccount} per socket, set by the
 * relay), and what each HTTP request holds while it is in flight: its body's forms and its
 * documents, reserved before they exist and admitted only while they fit
 * ({@link MemoryAccountant.reserve}), and its upstream answer ({@link MemoryAccountant.charge});
 * all given back once it is answered ({@link MemoryAccountant.release}). The second signal is the
 * process's resident memory above its first reading (what the count cannot see: the runtime's
 * own buffers, and the garbage parsing and re-serialising leaves until the collector runs), read
 * every `memoryRssSampleMs` while sockets are open (every `memoryRssPressedSampleMs` past the
 * pressure threshold) and at most that often when a request is admitted or the metrics are read;
 * never per frame.
 *
 * Thresholds:
 * - `pressure`, either signal past `memoryPressureShare` of the budget: new sockets are refused
 *   (upgrade 503 with retry-after, connection_init 1013 ProxyBusy) and relayed sockets pause
 *   their upstream leg past `memoryPressureHighWaterBytes` unsent instead of the usual mark;
 * - `over`, the count past the budget: new requests are refused 503 ProxyBusy (retry-after),
 *   and the sockets holding the most are closed 1013 (stuck ones first: a socket holding frames
 *   that wait, or whose upstream leg has been paused `memoryStalledMs`, its browser not
 *   reading), one at a time, until the count is back under the budget;
 * - resident memory past the budget (at a reading): stuck sockets holding the most are closed
 *   1013 until what they were counted for covers the excess (never one that is moving).
 * A reading past the pressure threshold first runs a full garbage collection where the runtime
 * offers one (at most every `memoryCollectEveryMs`; the "shrink the heap" action) and reads
 * again, so garbage the collector has not reached yet does not count as held; so do shedding
 * (at once, whatever the time since the last collection: the shed socket's frames are garbage
 * that a socket still filling would otherwise pile on) and the last socket's end (what they left
 * behind is given back).
 */
import { clearInterval, setInterval } from 'node:timers';
import { DEFAULTS } from '../config/defaults.ts';

/** Where the process stands against its budget. */
export type MemoryLevel = 'normal' | 'pressure' | 'over';

/** What the accountant did, counted (the metrics' `action` label). */
export interface MemoryActions {
  /** Times the process went past the pressure threshold. */
  pressure: number;
  /** Full garbage collections run past the pressure threshold. */
  collect: number;
  /** Upgrades and connection_inits refused past the pressure threshold. */
  refused_socket: number;
  /** Requests refused past the budget. */
  refused_request: number;
  /** Sockets closed 1013 past the budget. */
  shed_socket: number;
}

/** One relayed socket's share of the count. */
export interface SocketAccount {
  /** This socket now holds `bytes` (unsent both ways, held frames, the frame in hand). */
  set(bytes: number): void;
  /** The socket finished: its bytes leave the count. Idempotent. */
  close(): void;
}

/** What the accountant needs of a socket to shed it. */
export interface Sheddable {
  /** Closes the socket 1013 (its account is closed with it). */
  shed(): void;
  /**
   * Whether it is stuck: it holds frames waiting (before its upstream is ready, behind a pending
   * check), or its browser has not read for `memoryStalledMs` (its upstream leg paused as long).
   */
  stalled(): boolean;
}

/** Reads the process's resident memory in bytes (the host runtime's cheap call). */
export type ReadResident = () => number;

class Account implements SocketAccount {
  bytes = 0;
  closed = false;
  constructor(readonly owner: MemoryAccountant, readonly socket: Sheddable) {}
  set(bytes: number): void {
    if (this.closed) return;
    const delta = bytes - this.bytes;
    if (delta === 0) return;
    this.bytes = bytes;
    this.owner.add(delta);
  }
  close(): void {
    this.owner.forget(this);
  }
}

/** The accountant of one process (one per proxy). */
export class MemoryAccountant {
  /** The budget, bytes. */
  readonly budget: number;
  /** The pressure threshold, bytes. */
  readonly pressureBytes: number;
  /** Under pressure, the relay's high-water mark (bytes). */
  readonly pressureHighWaterBytes = DEFAULTS.memoryPressureHighWaterBytes;
  /** Bytes counted now. */
  held = 0;
  /** Past the pressure threshold now (read per frame by flow control: a field, not a call). */
  pressed = false;
  /** Resident memory above the first reading, bytes (0 where it cannot be read). */
  residentGrowth = 0;
  readonly actions: MemoryActions = {
    pressure: 0,
    collect: 0,
    refused_socket: 0,
    refused_request: 0,
    shed_socket: 0,
  };
  #over = false;
  #accounts = new Set<Account>();
  #shedding = false;
  #settling = false;
  #readResident: ReadResident | null;
  #residentStart = -1;
  #sampledAt = -Infinity;
  #sampleMs: number;
  #now: () => number;
  #timer: ReturnType<typeof setInterval> | null = null;
  #collect: (() => void) | null;
  #collectedAt = -Infinity;
  #onAction: ((action: keyof MemoryActions) => void) | null;

  /** `readResident` null: the count alone decides. */
  constructor(
    budget: number,
    readResident: ReadResident | null,
    options: {
      sampleMs?: number;
      now?: () => number;
      /** A full garbage collection, where the runtime offers one. */
      collect?: (() => void) | null;
      /** Called once per action taken (the metrics seam). */
      onAction?: (action: keyof MemoryActions) => void;
    } = {},
  ) {
    this.#onAction = options.onAction ?? null;
    this.#collect = options.collect ?? null;
    this.budget = budget;
    this.pressureBytes = Math.floor(budget * DEFAULTS.memoryPressureShare);
    this.#readResident = readResident;
    this.#sampleMs = options.sampleMs ?? DEFAULTS.memoryRssSampleMs;
    this.#now = options.now ?? Date.now;
    this.sample();
  }

  /** The level now (the larger signal against the thresholds). */
  get level(): MemoryLevel {
    return this.#over ? 'over' : this.pressed ? 'pressure' : 'normal';
  }

  /** Stops reading resident memory (the proxy closed). */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Sockets with an account now. */
  get sockets(): number {
    return this.#accounts.size;
  }

  /** A new socket's account (starting at 0 bytes); resident memory is read while any is open. */
  open(socket: Sheddable): SocketAccount {
    const account = new Account(this, socket);
    this.#accounts.add(account);
    if (this.#timer === null && this.#readResident !== null) {
      const tick = Math.min(this.#sampleMs, DEFAULTS.memoryRssPressedSampleMs);
      this.#timer = setInterval(() => this.sample(this.pressed), tick);
      this.#timer.unref?.();
    }
    return account;
  }

  /** A request now holds `bytes` more (its body read, its answer received). */
  charge(bytes: number): void {
    if (bytes > 0) this.add(bytes);
  }

  /** A request gave back `bytes` it was charged. */
  release(bytes: number): void {
    if (bytes > 0) this.add(-bytes);
    // the last request gone past the pressure threshold: settle as after the last socket; a large
    // one's garbage is collected (at most every memoryCollectEveryMs) before more piles on it
    const idle = this.held === 0 && this.#accounts.size === 0;
    if (idle && this.residentGrowth > this.pressureBytes) this.#settleSoon();
    else if (bytes >= DEFAULTS.memoryLargeRequestBytes) this.#collected(this.#now());
  }

  /**
   * Admits `bytes` more for a request, synchronously (no reading is awaited): counted and true
   * while the count with them stays within the budget, else false and counted as a refused
   * request (503 ProxyBusy). A new request's reservation of `memoryLargeRequestBytes` or more
   * must fit under the pressure threshold instead: the last share of the budget is left to what
   * the count cannot see (bodies of refused requests a host reads and drops, garbage the collector
   * has not reached; docs/benchmarks.md "Large bodies under the memory budget") and to the later
   * forms of requests already admitted (`admitted`: the budget is their room). Zero or less: true.
   */
  reserve(bytes: number, admitted = false): boolean {
    if (bytes <= 0) return true;
    if (!this.fits(bytes, admitted)) {
      this.#act('refused_request');
      return false;
    }
    this.add(bytes);
    return true;
  }

  /** Whether {@link reserve} would admit `bytes` now (nothing counted or done). */
  fits(bytes: number, admitted = false): boolean {
    const large = !admitted && bytes >= DEFAULTS.memoryLargeRequestBytes;
    return this.held + bytes <= (large ? this.pressureBytes : this.budget);
  }

  /**
   * True (and counted) when a new socket must be refused: past the pressure threshold. Resident
   * memory is read afresh for each (a few microseconds, small next to an upgrade): sockets that
   * arrive in a burst would otherwise all be admitted within one reading.
   */
  refuseSocket(): boolean {
    this.sample(true);
    if (!this.pressed) return false;
    this.#act('refused_socket');
    return true;
  }

  /** True (and counted) when a new request must be refused: past the budget. */
  refuseRequest(): boolean {
    if (this.#now() - this.#sampledAt >= this.#sampleMs) this.sample();
    if (!this.#over) return false;
    this.#act('refused_request');
    return true;
  }

  /** Reads resident memory now if its last reading is `memoryRssSampleMs` old (or `now`), then the level. */
  sample(fresh = false): void {
    const now = this.#now();
    if (this.#readResident === null || (!fresh && now - this.#sampledAt < this.#sampleMs)) return;
    this.#sampledAt = now;
    let rss: number;
    try {
      rss = this.#readResident();
      if (this.#residentStart >= 0 && rss - this.#residentStart > this.pressureBytes) {
        rss = this.#collected(now) ?? rss;
      }
    } catch {
      return;
    }
    if (this.#residentStart < 0) this.#residentStart = rss;
    this.residentGrowth = Math.max(0, rss - this.#residentStart);
    this.#level();
    if (this.pressed && this.held === 0 && this.#accounts.size === 0) this.#settleSoon();
    if (this.residentGrowth > this.budget) this.#shedStalled(this.residentGrowth - this.budget);
  }

  /** @internal An account's or a request's change of `delta` bytes. */
  add(delta: number): void {
    this.held += delta;
    if (delta > 0) {
      if (this.held > this.pressureBytes && !this.#over) this.#level();
      if (this.held > this.budget) this.#shed();
    } else if (this.pressed) this.#level();
  }

  /** @internal A socket finished. */
  forget(account: Account): void {
    if (!this.#accounts.delete(account)) return;
    account.closed = true;
    if (this.#accounts.size === 0 && this.#timer !== null) {
      clearInterval(this.#timer);
      this.#timer = null;
      // the last socket is gone: a collection (where offered) and a fresh reading, so what the
      // sockets left behind is given back while the process is quiet
      this.#settleSoon();
    }
    const bytes = account.bytes;
    account.bytes = 0;
    if (bytes !== 0) this.add(-bytes);
  }

  /**
   * Once the last socket is gone: a collection (where offered), then a fresh reading. With
   * nothing counted either, what resident memory is left above the start is the runtime's and
   * the allocator's slack (reused before the process grows again), not anything the gateway
   * holds: that reading becomes the new start, so an idle process is never left under pressure
   * refusing sockets for memory it cannot give back (docs/operations.md "Memory").
   */
  #settleSoon(): void {
    if (this.#settling) return;
    this.#settling = true;
    queueMicrotask(() => (this.#settling = false, this.#settle()));
  }

  #settle(): void {
    if (this.#accounts.size > 0 || this.residentGrowth === 0) return;
    this.#collectedAt = -Infinity;
    this.#collected(this.#now());
    this.sample(true);
    if (this.#accounts.size > 0 || this.held > 0 || this.#readResident === null) return;
    try {
      this.#residentStart = Math.max(this.#residentStart, this.#readResident());
    } catch {
      return;
    }
    this.residentGrowth = 0;
    this.#level();
  }

  /**
   * Runs the collector (at most every `memoryCollectEveryMs` unless `now` is forced: shedding) and
   * reads again; else null.
   */
  #collected(now: number, force = false): number | null {
    if (this.#collect === null) return null;
    if (!force && now - this.#collectedAt < DEFAULTS.memoryCollectEveryMs) return null;
    this.#collectedAt = now;
    this.#act('collect');
    this.#collect();
    return this.#readResident?.() ?? null;
  }

  #act(action: keyof MemoryActions): void {
    this.actions[action]++;
    try {
      this.#onAction?.(action);
    } catch { /* a metrics seam never stops an action */ }
  }

  #level(): void {
    const load = Math.max(this.held, this.residentGrowth);
    const pressed = load > this.pressureBytes;
    if (pressed && !this.pressed) this.#act('pressure');
    this.pressed = pressed;
    this.#over = this.held > this.budget;
  }

  /** Closes the sockets holding the most until the count is back under the budget. */
  #shed(): void {
    if (this.#shedding) return;
    this.#shedding = true;
    let shed = 0;
    try {
      while (this.held > this.budget) {
        const victim = this.#largest(false);
        if (!victim) break;
        shed++;
        this.#shedOne(victim);
      }
    } finally {
      this.#shedding = false;
    }
    // what the shed sockets held is garbage now: collect it at once
    if (shed > 0) this.#collected(this.#now(), true);
  }

  /** Closes stalled sockets holding the most until they were counted for `excess` bytes. */
  #shedStalled(excess: number): void {
    if (this.#shedding) return;
    this.#shedding = true;
    let covered = 0;
    try {
      while (covered < excess) {
        const victim = this.#largest(true);
        if (!victim) break;
        covered += victim.bytes;
        this.#shedOne(victim);
      }
    } finally {
      this.#shedding = false;
    }
    if (covered > 0) this.#collected(this.#now(), true);
  }

  #shedOne(victim: Account): void {
    this.#act('shed_socket');
    try {
      victim.socket.shed();
    } finally {
      this.forget(victim); // whatever the socket did, its bytes leave the count
    }
  }

  /**
   * The account to shed: the largest of the stalled ones, else (unless `stalledOnly`) the
   * largest; never one holding nothing.
   */
  #largest(stalledOnly: boolean): Account | null {
    let best: Account | null = null;
    let bestStalled = false;
    for (const account of this.#accounts) {
      if (account.bytes <= 0) continue;
      const stalled = account.socket.stalled();
      if (stalledOnly && !stalled) continue;
      if (
        best === null || (stalled && !bestStalled) ||
        (stalled === bestStalled && account.bytes > best.bytes)
      ) {
        best = account;
        bestStalled = stalled;
      }
    }
    return best;
  }
}
