// The server's rate limit: at most `limit` accepted requests in any sliding one-second window.
// Only accepted requests use up the budget, so a client that backs off gets through again; a strict
// sliding window (rather than fixed buckets) is what lets "never more than N per second" hold exactly.

const WINDOW_MS = 1000;

export type LimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class SlidingWindowLimiter {
  /** Accepted request times, oldest first; never longer than `limit`. */
  private accepted: number[] = [];

  constructor(private readonly limit: number) {}

  check(now: number): LimitDecision {
    if (this.limit <= 0) return { allowed: true };
    while (this.accepted.length > 0 && now - (this.accepted[0] ?? 0) >= WINDOW_MS) this.accepted.shift();
    if (this.accepted.length < this.limit) {
      this.accepted.push(now);
      return { allowed: true };
    }
    // The oldest accepted request leaves the window at oldest + 1 s; whole seconds, at least 1 (RFC 9110).
    const waitMs = (this.accepted[0] ?? now) + WINDOW_MS - now;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  reset(): void {
    this.accepted = [];
  }
}
