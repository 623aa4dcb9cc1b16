// A seeded PRNG so that a sandbox started with the same seed and sent the same requests in the same
// order injects the same faults and hands out the same ids: benchmarks and demos repeat exactly.

export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An unsigned 32-bit integer. */
  uint32(): number;
}

/** mulberry32: tiny, fast and good enough for fault injection (not for anything secret). */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const uint32 = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  return { uint32, next: () => uint32() / 4294967296 };
}

/** A version-4 UUID drawn from `rng`, so ids repeat with the seed (crypto.randomUUID would not). */
export function randomUuid(rng: Rng): string {
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i += 4) {
    const word = rng.uint32();
    bytes[i] = word >>> 24;
    bytes[i + 1] = (word >>> 16) & 0xff;
    bytes[i + 2] = (word >>> 8) & 0xff;
    bytes[i + 3] = word & 0xff;
  }
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40; // version 4
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // RFC 4122 variant
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// Random faults. Each request that gets this far takes exactly one draw from the seeded PRNG and the
// rates are laid end to end on [0, 1): the same seed and request order give the same faults, and
// changing one rate does not reshuffle which requests the others hit more than it must.

export const FAULT_KINDS = ['429', '500', '503', 'reset', 'commit500', 'slow'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultRates {
  fault429: number;
  fault500: number;
  fault503: number;
  faultReset: number;
  faultCommit500: number;
  faultSlow: number;
}

export function drawFault(rng: Rng, rates: FaultRates): FaultKind | undefined {
  const u = rng.next();
  let edge = 0;
  const bands: Array<[FaultKind, number]> = [
    ['429', rates.fault429],
    ['500', rates.fault500],
    ['503', rates.fault503],
    ['reset', rates.faultReset],
    ['commit500', rates.faultCommit500],
    ['slow', rates.faultSlow],
  ];
  for (const [kind, rate] of bands) {
    edge += rate;
    if (u < edge) return kind;
  }
  return undefined;
}

// The server's rate limit: at most `limit` accepted requests in any sliding one-second window.
// Only accepted requests use up the budget, so a client that backs off gets through again; a strict
// sliding window (rather than fixed buckets) is what lets "never more than N per second" hold exactly.
// A sustained breach (more requests refused than the limit within one second: a client sending at twice the limit
// or more) blocks the client for `blockMs`, as the real service blocks a client and its address for 5 minutes:
// every request is refused until then.

const WINDOW_MS = 1000;

export type LimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; blocked?: boolean };

export class SlidingWindowLimiter {
  /** Accepted request times, oldest first; never longer than `limit`. */
  private accepted: number[] = [];
  /** Refused request times within the last second, oldest first. */
  private refused: number[] = [];
  private blockedUntil = 0;

  constructor(
    private readonly limit: number,
    private readonly blockMs = 0,
  ) {}

  check(now: number): LimitDecision {
    if (this.limit <= 0) return { allowed: true };
    if (now < this.blockedUntil)
      return {
        allowed: false,
        blocked: true,
        retryAfterSeconds: Math.max(1, Math.ceil((this.blockedUntil - now) / 1000)),
      };
    while (this.accepted.length > 0 && now - (this.accepted[0] ?? 0) >= WINDOW_MS) this.accepted.shift();
    if (this.accepted.length < this.limit) {
      this.accepted.push(now);
      return { allowed: true };
    }
    while (this.refused.length > 0 && now - (this.refused[0] ?? 0) >= WINDOW_MS) this.refused.shift();
    this.refused.push(now);
    if (this.blockMs > 0 && this.refused.length > this.limit) {
      this.blockedUntil = now + this.blockMs;
      this.refused = [];
      return { allowed: false, blocked: true, retryAfterSeconds: Math.max(1, Math.ceil(this.blockMs / 1000)) };
    }
    // The oldest accepted request leaves the window at oldest + 1 s; whole seconds, at least 1 (RFC 9110).
    const waitMs = (this.accepted[0] ?? now) + WINDOW_MS - now;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  reset(): void {
    this.accepted = [];
    this.refused = [];
    this.blockedUntil = 0;
  }
}
