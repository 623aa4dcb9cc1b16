import type { Clock, RateLimiter } from './RateLimiter.js';
import { RECENT, TrafficRecord } from './TrafficRecord.js';
import type { AdaptiveMode, AdaptiveRateOptions, AdaptiveRateStats, RateChange } from './ApiClient.js';

export type { RateChange } from './ApiClient.js';

const DEFAULT_ADAPTIVE_RATE: Required<AdaptiveRateOptions> = {
  decreaseFactor: 0.7,
  floor: 1,
  increaseStep: 1,
  increaseEveryMs: 2000,
  maxIncreaseEveryMs: 16_000,
  trialAnswers: 40,
};

/** A server's limit counts requests per second: the second after a decrease still holds what was sent before it. */
const SETTLE_MS = 1000;
/** Answers below which the 429 share before a decrease says nothing (the first answer of a run being a 429: 100%). */
const MIN_SHARE_SAMPLE = 10;
/** 429s taken as noise are forgotten after this long without one: a later limit is a new question. */
const NOISE_MEMORY_MS = 30_000;

/** A decrease on trial: the rate before it, the 429 share before it, and what answered since. */
interface Trial {
  /** Answers count for requests sent from here on (the decrease, and a second for the server to forget). */
  countFrom: number;
  rateBefore: number;
  /** Undefined when too few answers came before it to say. */
  shareBefore: number | undefined;
  answers: number;
  throttled: number;
}

/**
 * Drives the limiter's rate from the answers: a 429 that the rate causes lowers it, quiet periods raise it again,
 * never above the cap (`--rate`), never below the floor.
 *
 * The real API sends no `Retry-After` and blocks a client for 5 minutes after a sustained breach, so the client has
 * to find the tier's rate by itself; but a service also answers 429 for reasons that have nothing to do with the
 * rate (a shared limit, a busy node), and lowering the rate does nothing against those. Rules:
 * - one decrease per burst: after a decrease, 429s for requests sent before it, or within the second after it (a
 *   server's window still holds the old rate), or while the decrease is on trial, change nothing;
 * - a decrease goes to 0.7 x the rate really sent in the busiest of the last seconds (CUBIC's factor: the sawtooth
 *   averages about 0.85 x the limit; the busiest, since a 429's pause is ours and says nothing of the rate), and to
 *   0.9 x what the server accepted in its busiest second when that is lower: under a limit of L a second no second
 *   holds more than L accepted requests, so one decrease lands below the limit however far above it the run was.
 *   The answers still out when it was made (the first burst of a run) may take it lower as they come in;
 * - a trial: the next `trialAnswers` answers show whether the 429 share fell with the rate. Under a limit it falls
 *   to nothing (or to a third of the share before, or stays at one in two or more), and the decrease stays. 429s that
 *   go on coming at about the share they came at before are noise: every decrease of the burst is undone at once,
 *   429s only pause the calls (the client honours their `Retry-After`), and none lowers the rate until the share
 *   rises far above that noise, or 30 s pass without one;
 * - with no cap at all (`--rate 0`) a 429 engages one; it goes again once 429s turn out to be noise, or the rate has
 *   climbed to twice the rate that got the 429;
 * - recovery, then probing: below the rate that got the last 429 (less one step), and all the way while 429s are
 *   noise, the rate climbs back fast (a tenth, at least one step, every quarter quiet period); past it, one step per
 *   quiet period, the step doubling with each probe above that rate that passes, so once the 429s stop the cap is
 *   back within seconds;
 * - a 429 at about the same rate as the one before confirms the limit: the quiet period before the next probe doubles
 *   (up to `maxIncreaseEveryMs`), so a client sitting at its tier's limit probes it more rarely. A probe that passes
 *   or a 429 at a new rate resets it.
 */
export class AdaptiveRate {
  readonly #limiter: RateLimiter;
  readonly #clock: Clock;
  readonly #cap: number;
  readonly #options: Required<AdaptiveRateOptions>;
  #mode: AdaptiveMode = 'steady';
  #lastChangeAt: number;
  #lastDecreaseAt = Number.NEGATIVE_INFINITY;
  #lastThrottledAt = Number.NEGATIVE_INFINITY;
  /** The rate that got the last 429 (what the decrease started from); Infinity before any. */
  #ceiling = Number.POSITIVE_INFINITY;
  #probeEveryMs: number;
  #probeStep: number;
  /** The last change was a probe above the ceiling: reaching the next quiet period means it passed. */
  #probing = false;
  #trial: Trial | undefined;
  /** The rate before the first decrease since the rate last rose: where the burst of 429s found it. */
  #burstFrom: number | undefined;
  /** The 429 share found not to follow the rate. */
  #noiseShare = 0;
  readonly #traffic = new TrafficRecord();
  #decreases = 0;
  #increases = 0;
  #undone = 0;
  #lowest = Number.POSITIVE_INFINITY;

  /** `cap`: the configured `--rate`; 0 = none. */
  constructor(limiter: RateLimiter, cap: number, clock: Clock, options: AdaptiveRateOptions = {}) {
    this.#limiter = limiter;
    this.#clock = clock;
    this.#cap = cap > 0 ? cap : Number.POSITIVE_INFINITY;
    this.#options = { ...DEFAULT_ADAPTIVE_RATE, ...options };
    const { decreaseFactor, floor, increaseStep, increaseEveryMs, maxIncreaseEveryMs, trialAnswers } = this.#options;
    if (!(decreaseFactor > 0 && decreaseFactor < 1))
      throw new RangeError(`decreaseFactor must be between 0 and 1, got ${decreaseFactor}`);
    if (!(floor > 0)) throw new RangeError(`floor must be above 0, got ${floor}`);
    if (!(increaseStep > 0)) throw new RangeError(`increaseStep must be above 0, got ${increaseStep}`);
    if (!(increaseEveryMs >= 0)) throw new RangeError(`increaseEveryMs must be 0 or more, got ${increaseEveryMs}`);
    if (!(maxIncreaseEveryMs >= increaseEveryMs))
      throw new RangeError(`maxIncreaseEveryMs must be at least increaseEveryMs, got ${maxIncreaseEveryMs}`);
    if (!(Number.isInteger(trialAnswers) && trialAnswers >= 1))
      throw new RangeError(`trialAnswers must be a whole number above 0, got ${trialAnswers}`);
    this.#probeEveryMs = increaseEveryMs;
    this.#probeStep = increaseStep;
    this.#lastChangeAt = clock.now();
  }

  /** What the adaptation did and where it stands, for the log, the tests and the benchmark. */
  get stats(): AdaptiveRateStats {
    return {
      decreases: this.#decreases,
      increases: this.#increases,
      undone: this.#undone,
      rate: this.#limiter.rate,
      lowest: this.#lowest,
      ceiling: this.#ceiling,
      probeEveryMs: this.#probeEveryMs,
      mode: this.#mode,
    };
  }

  /** A request went out at `at` (epoch ms). */
  sent(at: number): void {
    this.#traffic.sent(at);
  }

  /**
   * Requests per second really sent, counted over the last whole second and the part of the current 100 ms
   * bucket gone by (or since sending began, when that is less).
   */
  sentRate(now = this.#clock.now()): number {
    return this.#traffic.sentRate(now);
  }

  /**
   * The request sent at `sentAt` got an HTTP answer (a 5xx too: the server took it). Returns the change of rate it
   * caused, if any. Call it for a 429 before pausing the limiter for it, so the pause it reads is the one before.
   */
  answered(sentAt: number, status: number): RateChange | undefined {
    const throttled = status === 429;
    const now = this.#clock.now();
    this.#traffic.answered(sentAt, throttled);
    const quietBefore = now - this.#lastThrottledAt;
    if (throttled) this.#lastThrottledAt = now;
    const trial = this.#trial;
    if (trial !== undefined) {
      if (sentAt >= trial.countFrom) {
        trial.answers += 1;
        if (throttled) trial.throttled += 1;
        return this.#judge(trial, now);
      }
      // The answers still out when the decrease was made come in: what the server took may be less than it seemed.
      const bound = Math.max(Math.min(this.#options.floor, this.#cap), this.#traffic.acceptedBound(now));
      if (sentAt < this.#lastDecreaseAt && bound < this.#limiter.rate) {
        this.#setRate(bound);
        return { rate: bound, because: 'refined' };
      }
      return undefined;
    }
    if (throttled) return this.#throttled(sentAt, now, quietBefore);
    // An overloaded server's 5xx is no reason to send faster.
    return status < 500 ? this.#quiet(now) : undefined;
  }

  /** A 429 outside a trial; `quietBefore`: ms since the 429 before it. */
  #throttled(sentAt: number, now: number, quietBefore: number): RateChange | undefined {
    // Sent before the last decrease: it says nothing about the new rate.
    if (sentAt < this.#lastDecreaseAt) return undefined;
    if (this.#mode === 'noise') {
      const share = this.#traffic.recentShare();
      const aboveNoise =
        this.#traffic.recentAnswers >= RECENT && share > Math.max(3 * this.#noiseShare, this.#noiseShare + 0.2);
      if (quietBefore < NOISE_MEMORY_MS && !aboveNoise) return undefined;
      this.#mode = 'steady';
    }
    const current = this.#limiter.rate > 0 ? this.#limiter.rate : Number.POSITIVE_INFINITY;
    // The busiest recent second, not the last one: a 429's pause is ours, and says nothing of the rate.
    const sent = Math.max(this.sentRate(now), this.#traffic.busiestSent(now));
    const base = Math.min(current, Math.max(1, sent));
    const floor = Math.min(this.#options.floor, this.#cap);
    const next = Math.min(
      this.#cap,
      Math.max(floor, Math.min(base * this.#options.decreaseFactor, this.#traffic.acceptedBound(now))),
    );
    const sameLimit =
      Number.isFinite(this.#ceiling) &&
      Math.abs(base - this.#ceiling) <= Math.max(this.#options.increaseStep, 0.05 * this.#ceiling);
    this.#probeEveryMs = sameLimit
      ? Math.min(this.#options.maxIncreaseEveryMs, this.#probeEveryMs * 2)
      : this.#options.increaseEveryMs;
    this.#probeStep = this.#options.increaseStep;
    this.#probing = false;
    this.#ceiling = base;
    this.#burstFrom ??= this.#limiter.rate;
    this.#trial = {
      countFrom: now + SETTLE_MS,
      rateBefore: this.#limiter.rate,
      shareBefore: this.#traffic.recentAnswers >= MIN_SHARE_SAMPLE ? this.#traffic.recentShare() : undefined,
      answers: 0,
      throttled: 0,
    };
    this.#mode = 'trial';
    this.#setRate(next);
    this.#lastDecreaseAt = now;
    this.#lastChangeAt = now;
    this.#decreases += 1;
    return { rate: next, because: 'throttled' };
  }

  /**
   * Whether the trial has its answer yet, and what it is. 429s that go on coming at about the share they came at
   * before (at least two, under one in two: nothing a service means as noise) are not the rate's: the burst's
   * decreases are undone. Under a limit a decrease lands below it and the 429s stop: a whole trial without one (a
   * single stray one, two trials) keeps the decrease, as does a share fallen to a third of the one before; a share
   * of one in two or more says at once that the rate is still above the limit.
   */
  #judge(trial: Trial, now: number): RateChange | undefined {
    const { answers, throttled, shareBefore } = trial;
    const share = answers === 0 ? 0 : throttled / answers;
    const noise =
      throttled >= 2 &&
      answers >= MIN_SHARE_SAMPLE &&
      share < 0.5 &&
      (shareBefore === undefined || share > shareBefore / 3);
    const trialAnswers = this.#options.trialAnswers;
    // Still one in two or more: the decrease was not enough, and the next 429 may lower it again.
    const stillAbove = answers >= MIN_SHARE_SAMPLE && share >= 0.5;
    const undecided = answers < trialAnswers || (throttled === 1 && answers < 2 * trialAnswers);
    if (!noise && !stillAbove && undecided) return undefined;
    this.#trial = undefined;
    if (!noise) {
      this.#mode = 'steady';
      return undefined;
    }
    // Every decrease of this burst goes, not only the one on trial: the earlier ones were taken on the same noise.
    const rate = this.#burstFrom ?? trial.rateBefore;
    this.#burstFrom = undefined;
    this.#mode = 'noise';
    this.#noiseShare = share;
    this.#undone += 1;
    this.#lastChangeAt = now;
    this.#setRate(rate);
    return { rate, because: 'not-the-rate' };
  }

  /** An answer without a 429 outside a trial: a quiet period since the last change raises the rate. */
  #quiet(now: number): RateChange | undefined {
    const rate = this.#limiter.rate;
    // Not engaged (no cap and no 429 yet), or at the cap already.
    if (rate <= 0 || rate >= this.#cap) return undefined;
    const step = this.#options.increaseStep;
    const recoverTo = this.#ceiling - step;
    const recovering = rate < recoverTo;
    const noise = this.#mode === 'noise';
    const quietMs = recovering || noise ? this.#options.increaseEveryMs / 4 : this.#probeEveryMs;
    if (now - this.#lastChangeAt < quietMs) return undefined;
    let next: number;
    if (noise) {
      // 429s say nothing of the rate here: back up as fast as recovery goes (a limit behind the noise would show as a
      // share well above it, and end the noise).
      next = rate + Math.max(step, 0.1 * rate);
      this.#probing = false;
    } else if (recovering) {
      next = Math.min(recoverTo, rate + Math.max(step, 0.1 * this.#ceiling));
      this.#probing = false;
    } else {
      if (this.#probing && rate > this.#ceiling) {
        // The last probe, above the rate that got the last 429, went through a quiet period without one: the limit
        // is not where it was.
        this.#probeStep *= 2;
        this.#probeEveryMs = this.#options.increaseEveryMs;
      }
      next = rate + this.#probeStep;
      this.#probing = true;
    }
    // With no cap configured, the cap engaged by a 429 goes once the rate is well past the rate that got it.
    if (this.#cap === Number.POSITIVE_INFINITY && next >= 2 * this.#ceiling) next = 0;
    else next = Math.min(this.#cap, next);
    this.#setRate(next);
    this.#burstFrom = undefined;
    this.#lastChangeAt = now;
    this.#increases += 1;
    return { rate: next, because: 'quiet' };
  }

  /**
   * The service's block is over: it blocked the client for sending faster than its limit for a while, so the client
   * goes on well below the rate that first met 429s (never the cap, nor uncapped, that the quiet of the block
   * would have climbed back to), and probes above it as rarely as it ever does.
   */
  afterBlock(): RateChange {
    const now = this.#clock.now();
    const met = Number.isFinite(this.#ceiling) ? this.#ceiling : Math.max(1, this.#traffic.busiestSent(now));
    const floor = Math.min(this.#options.floor, this.#cap);
    const rate = Math.min(this.#cap, Math.max(floor, met * this.#options.decreaseFactor));
    this.#ceiling = met;
    this.#trial = undefined;
    this.#burstFrom = undefined;
    this.#mode = 'steady';
    this.#probing = false;
    this.#probeEveryMs = this.#options.maxIncreaseEveryMs;
    this.#lastChangeAt = now;
    this.#lastDecreaseAt = now;
    this.#decreases += 1;
    this.#setRate(rate);
    return { rate, because: 'throttled' };
  }

  #setRate(rate: number): void {
    this.#limiter.setRate(rate);
    if (rate > 0 && rate < this.#lowest) this.#lowest = rate;
  }
}
