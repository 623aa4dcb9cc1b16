import type { Clock, RateLimiter } from './RateLimiter.js';

export interface AdaptiveRateOptions {
  /** After a 429 the rate becomes (the lower of the current rate and the rate really sent) x this. Default 0.7. */
  decreaseFactor?: number;
  /** Never below this many requests/s (nor above the cap). Default 1. */
  floor?: number;
  /** Requests/s added by a probe above the last rate that got a 429 (or, with none yet, after each quiet period). Default 1. */
  increaseStep?: number;
  /** A quiet period before a probe: this long since the last change, no 429 and a success to end it. Default 2000 ms. */
  increaseEveryMs?: number;
  /** Repeated 429s at the same rate double the quiet period before the next probe, up to this. Default 60 000 ms. */
  maxIncreaseEveryMs?: number;
}

export const DEFAULT_ADAPTIVE_RATE: Required<AdaptiveRateOptions> = {
  decreaseFactor: 0.7,
  floor: 1,
  increaseStep: 1,
  increaseEveryMs: 2000,
  maxIncreaseEveryMs: 60_000,
};

const BUCKET_MS = 100;
/** Ten buckets make the last second, plus the current one that is still filling. */
const BUCKETS = 11;

/**
 * Drives the limiter's rate from the answers (AIMD, as TCP does): a 429 lowers the rate multiplicatively,
 * each quiet period raises it by a step, never above the cap (`--rate`), never below the floor.
 *
 * The real API sends no `Retry-After` and blocks a client for 5 minutes after a sustained breach, so the client
 * has to find the tier's rate by itself. Rules:
 * - one decrease per "round": a 429 for a request sent before the last decrease says nothing about the new rate;
 * - the decrease starts from what was really sent in the last second when that is lower than the limiter's
 *   rate (concurrency or latency may keep the run below its cap) and no pause fell in that second, and from
 *   it alone with no cap at all: with `--rate 0` a 429 engages a cap that stays;
 * - 0.7 rather than 0.5 (CUBIC's factor): the sawtooth between 0.7 x limit and the limit averages about
 *   0.85 x limit, where halving would average 0.75;
 * - recovery, then probing: below the rate that got the last 429 (less one step) the rate climbs back fast
 *   (a tenth of that rate, at least one step, every quarter quiet period); past it, one step per quiet period;
 * - a 429 at about the same rate as the one before confirms the limit: the quiet period before the next probe
 *   doubles (up to `maxIncreaseEveryMs`), so a client sitting at its tier's limit probes it ever more rarely
 *   (the real API blocks a client for 5 minutes after a sustained breach). A 429 at a new rate resets it.
 */
export class AdaptiveRate {
  readonly #limiter: RateLimiter;
  readonly #clock: Clock;
  readonly #cap: number;
  readonly #options: Required<AdaptiveRateOptions>;
  #lastChangeAt: number;
  #lastDecreaseAt = Number.NEGATIVE_INFINITY;
  /** The rate that got the last 429 (what the decrease started from); Infinity before any. */
  #ceiling = Number.POSITIVE_INFINITY;
  #probeEveryMs: number;
  /** Requests sent per 100 ms bucket (a ring indexed by bucket number). */
  readonly #counts = new Array<number>(BUCKETS).fill(0);
  readonly #bucketOf = new Array<number>(BUCKETS).fill(-1);
  #firstSentAt = Number.POSITIVE_INFINITY;
  #decreases = 0;
  #increases = 0;

  /** `cap`: the configured `--rate`; 0 = none. */
  constructor(limiter: RateLimiter, cap: number, clock: Clock, options: AdaptiveRateOptions = {}) {
    this.#limiter = limiter;
    this.#clock = clock;
    this.#cap = cap > 0 ? cap : Number.POSITIVE_INFINITY;
    this.#options = { ...DEFAULT_ADAPTIVE_RATE, ...options };
    const { decreaseFactor, floor, increaseStep, increaseEveryMs, maxIncreaseEveryMs } = this.#options;
    if (!(decreaseFactor > 0 && decreaseFactor < 1))
      throw new RangeError(`decreaseFactor must be between 0 and 1, got ${decreaseFactor}`);
    if (!(floor > 0)) throw new RangeError(`floor must be above 0, got ${floor}`);
    if (!(increaseStep > 0)) throw new RangeError(`increaseStep must be above 0, got ${increaseStep}`);
    if (!(increaseEveryMs >= 0)) throw new RangeError(`increaseEveryMs must be 0 or more, got ${increaseEveryMs}`);
    if (!(maxIncreaseEveryMs >= increaseEveryMs))
      throw new RangeError(`maxIncreaseEveryMs must be at least increaseEveryMs, got ${maxIncreaseEveryMs}`);
    this.#probeEveryMs = increaseEveryMs;
    this.#lastChangeAt = clock.now();
  }

  /** Counts of what the adaptation did, for the log and the benchmark. */
  get stats(): { decreases: number; increases: number; rate: number; ceiling: number; probeEveryMs: number } {
    return {
      decreases: this.#decreases,
      increases: this.#increases,
      rate: this.#limiter.rate,
      ceiling: this.#ceiling,
      probeEveryMs: this.#probeEveryMs,
    };
  }

  /** A request went out at `at` (epoch ms). */
  sent(at: number): void {
    if (at < this.#firstSentAt) this.#firstSentAt = at;
    const bucket = Math.floor(at / BUCKET_MS);
    const i = bucket % BUCKETS;
    if (this.#bucketOf[i] !== bucket) {
      this.#bucketOf[i] = bucket;
      this.#counts[i] = 0;
    }
    this.#counts[i] = (this.#counts[i] ?? 0) + 1;
  }

  /**
   * Requests per second really sent, counted over the last whole second and the part of the current 100 ms
   * bucket gone by (or since sending began, when that is less).
   */
  sentRate(now = this.#clock.now()): number {
    const current = Math.floor(now / BUCKET_MS);
    let count = 0;
    for (let i = 0; i < BUCKETS; i += 1) {
      const bucket = this.#bucketOf[i] ?? -1;
      if (bucket > current - BUCKETS && bucket <= current) count += this.#counts[i] ?? 0;
    }
    const from = Math.max((current - BUCKETS + 1) * BUCKET_MS, this.#firstSentAt);
    return (count * 1000) / Math.max(BUCKET_MS, now - from);
  }

  /**
   * A request sent at `sentAt` was answered 429. Returns the new rate when it lowered it.
   * Call it before pausing the limiter for this 429, so the pause it reads is the one before.
   */
  throttled(sentAt: number): number | undefined {
    if (sentAt < this.#lastDecreaseAt) return undefined;
    const now = this.#clock.now();
    const current = this.#limiter.rate > 0 ? this.#limiter.rate : Number.POSITIVE_INFINITY;
    // What was sent in the last second tells the real rate only if nobody was paused in it (a pause is ours, not the rate's).
    const measurable = this.#limiter.pausedUntil <= now - 1000 || current === Number.POSITIVE_INFINITY;
    const base = measurable ? Math.min(current, Math.max(1, this.sentRate(now))) : current;
    const floor = Math.min(this.#options.floor, this.#cap);
    const next = Math.min(this.#cap, Math.max(floor, base * this.#options.decreaseFactor));
    const sameLimit =
      Number.isFinite(this.#ceiling) &&
      Math.abs(base - this.#ceiling) <= Math.max(this.#options.increaseStep, 0.05 * this.#ceiling);
    this.#probeEveryMs = sameLimit
      ? Math.min(this.#options.maxIncreaseEveryMs, this.#probeEveryMs * 2)
      : this.#options.increaseEveryMs;
    this.#ceiling = base;
    this.#limiter.setRate(next);
    this.#lastDecreaseAt = now;
    this.#lastChangeAt = now;
    this.#decreases += 1;
    return next;
  }

  /** A request was answered without a 429. Returns the new rate when a quiet period raised it. */
  succeeded(): number | undefined {
    const rate = this.#limiter.rate;
    // Not engaged (no cap and no 429 yet), or at the cap already.
    if (rate <= 0 || rate >= this.#cap) return undefined;
    const now = this.#clock.now();
    const step = this.#options.increaseStep;
    const recoverTo = this.#ceiling - step;
    const recovering = rate < recoverTo;
    const quietMs = recovering ? this.#options.increaseEveryMs / 4 : this.#probeEveryMs;
    if (now - this.#lastChangeAt < quietMs) return undefined;
    const next = Math.min(
      this.#cap,
      recovering ? Math.min(recoverTo, rate + Math.max(step, 0.1 * this.#ceiling)) : rate + step,
    );
    this.#limiter.setRate(next);
    this.#lastChangeAt = now;
    this.#increases += 1;
    return next;
  }
}
