/**
 * Live sockets by account, so the admin panel can take a bot back at once: SPEC "WebSocket close
 * codes" (4401 Unauthorized: "the admin panel removed this socket's bot") and "Admin panel"
 * (grants DELETE).
 *
 * socket_admission.ts tracks every admitted socket whose session names an account (gate on);
 * `revoke(subject, botId)` ends that account's sockets whose bot set holds the bot. The admin
 * panel's revoke calls it in the process that answered; every other process calls it when the
 * revocation feed (src/shared_limits/sync.ts) brings the same revocation, within 2 s.
 */
import { CLOSE } from '../ws/close_codes.ts';

/** One tracked socket: how the relay ends it, and what it holds. */
interface Tracked {
  subject: string;
  botIds: ReadonlySet<string>;
  end: ((code: number, reason: string) => void) | null;
}

/** The registry of one proxy instance. */
export interface Revocations {
  /**
   * Tracks a socket of `subject` holding `botIds`; answers the session hooks the relay calls:
   * `onRevoke` (receives the function that ends the socket) and `release` (socket ended).
   */
  track(subject: string, botIds: ReadonlySet<string>): {
    onRevoke(end: (code: number, reason: string) => void): void;
    release(): void;
  };
  /** Ends (4401 Unauthorized) every live socket of `subject` holding `botId`; answers how many. */
  revoke(subject: string, botId: string): number;
  /**
   * Ends (4401 Unauthorized) every live socket, of any account, holding `botId` (the bot itself
   * was removed); answers the accounts whose sockets it ended.
   */
  revokeBot(botId: string): Set<string>;
  /** Live tracked sockets. */
  readonly size: number;
}

/** An empty registry. */
export function createRevocations(): Revocations {
  const live = new Set<Tracked>();
  const revoke = (subject: string, botId: string) => {
    let closed = 0;
    for (const tracked of [...live]) {
      if (tracked.subject !== subject || !tracked.botIds.has(botId)) continue;
      live.delete(tracked);
      tracked.end?.(CLOSE.unauthorized.code, CLOSE.unauthorized.reason);
      closed += 1;
    }
    return closed;
  };
  return {
    track(subject, botIds) {
      const tracked: Tracked = { subject, botIds, end: null };
      live.add(tracked);
      return {
        onRevoke: (end) => tracked.end = end,
        release: () => live.delete(tracked),
      };
    },
    revoke,
    revokeBot(botId) {
      const subjects = new Set<string>();
      for (const tracked of [...live]) if (tracked.botIds.has(botId)) subjects.add(tracked.subject);
      for (const subject of subjects) revoke(subject, botId);
      return subjects;
    },
    get size() {
      return live.size;
    },
  };
}
