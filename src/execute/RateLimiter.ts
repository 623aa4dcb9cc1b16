import { setTimeout as delay } from 'node:timers/promises';

/** Time as the limiter and the retry loop see it; tests pass a fake one so nothing really waits. */
export interface Clock {
  /** Milliseconds since the epoch (fractions allowed). */
  now(): number;
  /** Resolves after `ms`, or early (never rejecting) once `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

// Read once: on Node 20 the getter asks the runtime each time, and the clock is read several times a request.
const TIME_ORIGIN = performance.timeOrigin;

/** Epoch-based but monotonic: a wall-clock step (NTP) must not let a burst through the rate cap. */
export const systemClock: Clock = {
  now: () => TIME_ORIGIN + performance.now(),
  sleep: async (ms, signal) => {
    if (ms <= 0 || signal?.aborted === true) return;
    try {
      await delay(ms, undefined, { signal });
    } catch (error) {
      if (!signal?.aborted) throw error;
    }
  },
};

const WINDOW_MS = 1000;
const DEFAULT_MARGIN_MS = 25;
/**
 * The shortest wait a timer keeps: asked for less, it still waits about this long. Above 1,000 requests/s the
 * spacing is shorter than this, so a start may come up to this much before its due time instead of waiting a
 * timer for a few microseconds (which would then let the next ones through in a bunch anyway, and cost a timer
 * for every other request). At or below 1,000 requests/s nothing changes.
 */
const TIMER_MS = 1;

/**
 * The requests-per-second cap shared by every call of a run.
 *
 * Two rules, both checked against the clock at the moment a request is let through:
 * - spacing: starts are 1000/R ms apart (a token bucket with a burst of 1), scheduled from the previous
 *   start's due time, so timer lateness does not pile up and the mean rate stays at R;
 * - window: never more than floor(R) starts (at least 1) in any one-second window, whatever the spacing
 *   rounding or lateness did. This is the hard guarantee. The window is taken `marginMs` longer than a second
 *   (default 25 ms, costing at most 2.5% of the rate) so that the few milliseconds of jitter between our start
 *   and the server's arrival time cannot put R + 1 requests into one of the server's seconds.
 * Above 1,000 requests/s a start may come up to TIMER_MS early by the spacing rule (never by the window rule).
 * R = 0 means no cap; `pauseUntil` (a 429) still holds everyone. Waiters are served first in, first out
 * by a single pump, so exactly one timer is pending however many callers wait.
 * `setRate` takes effect at the next start (AdaptiveRate drives it: slower after a 429, back up once they stop).
 */
export class RateLimiter {
  readonly #clock: Clock;
  #rate: number;
  #pausedUntil = 0;
  /** When the next start is due by the spacing rule. */
  #due = Number.NEGATIVE_INFINITY;
  /**
   * Starts of the last window, sorted by time (kept by time, so a rate change still sees them all), from `#first`
   * on: the ones before it have left the window.
   */
  readonly #starts: StartRecord[] = [];
  #first = 0;
  readonly #queue: Array<(slot: LimiterSlot) => void> = [];
  #pumping = false;
  #closed = false;
  /** Cuts the pump's sleep short on close, so a long pause does not keep the process alive. */
  readonly #closing = new AbortController();

  readonly #windowMs: number;

  constructor(rate: number, clock: Clock = systemClock, options: { marginMs?: number } = {}) {
    this.#clock = clock;
    this.#rate = checkRate(rate);
    this.#windowMs = WINDOW_MS + (options.marginMs ?? DEFAULT_MARGIN_MS);
  }

  get rate(): number {
    return this.#rate;
  }

  setRate(rate: number): void {
    this.#rate = checkRate(rate);
  }

  get pausedUntil(): number {
    return this.#pausedUntil;
  }

  /** Calls queued for a start. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Nobody starts before `epochMs` (a 429 pauses all calls). Never shortens an existing pause. */
  pauseUntil(epochMs: number): void {
    if (epochMs > this.#pausedUntil) this.#pausedUntil = epochMs;
  }

  /**
   * Resolves when this caller may start a request. The slot's `sentAt` moves the recorded start to when the
   * request actually left (a cold connection can take a while), so the window holds as the server sees it.
   */
  acquire(): Promise<LimiterSlot> {
    const free = this.tryAcquire();
    if (free !== undefined) return Promise.resolve(free);
    return new Promise<LimiterSlot>((resolve) => {
      this.#queue.push(resolve);
      void this.#pump();
    });
  }

  /** A slot now, without waiting, when one is free and nobody queues before this caller; undefined otherwise. */
  tryAcquire(): LimiterSlot | undefined {
    if (this.#closed) return NO_SLOT;
    if (this.#queue.length > 0 || this.#pumping) return undefined;
    const now = this.#clock.now();
    return this.#earliest(now) <= now ? this.#take(now) : undefined;
  }

  /** Lets every waiter (and every later caller) through at once: used when the client stops, so queued calls can give up. */
  close(): void {
    this.#closed = true;
    this.#closing.abort();
    for (const resolve of this.#queue.splice(0)) resolve(NO_SLOT);
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#queue.length > 0) {
        const now = this.#clock.now();
        const at = this.#earliest(now);
        if (at > now) {
          // Above 1,000 a second a wait is at least a timer's: on waking, a millisecond's starts are due together.
          const wait = this.#slack() > 0 ? Math.max(at - now, TIMER_MS) : at - now;
          await this.#clock.sleep(wait, this.#closing.signal);
          continue;
        }
        const slot = this.#take(now);
        this.#queue.shift()?.(slot);
      }
    } finally {
      this.#pumping = false;
    }
  }

  #earliest(now: number): number {
    let at = Math.max(now, this.#pausedUntil);
    if (this.#rate > 0) {
      at = Math.max(at, this.#due - this.#slack());
      const limit = windowLimit(this.#rate);
      const nth = this.#starts.length - limit;
      if (nth >= this.#first) at = Math.max(at, this.#starts[nth]!.at + this.#windowMs);
    }
    return at;
  }

  /** How early a start may come by the spacing rule: 0 up to 1,000 a second, where a timer can keep the spacing. */
  #slack(): number {
    return this.#rate > 0 ? Math.max(0, TIMER_MS - WINDOW_MS / this.#rate) : 0;
  }

  #take(now: number): LimiterSlot {
    if (this.#rate <= 0) return NO_SLOT;
    const interval = WINDOW_MS / this.#rate;
    // Late by less than one interval: keep the schedule (no drift). Idle for longer: start afresh from now.
    this.#due = (now - this.#due < interval ? this.#due : now) + interval;
    const record: StartRecord = { at: now };
    const starts = this.#starts;
    // Sorted by time, so the starts that left the window are at the front. They are passed over, not cut off:
    // at a high cap the window holds thousands of starts, and moving them all for every request costs more than
    // the request. The array is cut once most of it has left.
    let first = this.#first;
    while (first < starts.length && starts[first]!.at <= now - this.#windowMs) first++;
    if (first >= 1024 && 2 * first >= starts.length) {
      starts.splice(0, first);
      first = 0;
    }
    this.#first = first;
    starts.push(record);
    return {
      counted: true,
      sentAt: (epochMs) => {
        if (epochMs <= record.at) return;
        record.at = epochMs;
        // Dropped from the window meanwhile: counted again from when it left. Then moved up to its place.
        let i = starts.lastIndexOf(record);
        if (i < this.#first) i = starts.push(record) - 1;
        while (i + 1 < starts.length && starts[i + 1]!.at < epochMs) {
          starts[i] = starts[i + 1]!;
          starts[i + 1] = record;
          i++;
        }
      },
    };
  }
}

interface StartRecord {
  at: number;
}

/** What `acquire` hands out. */
export interface LimiterSlot {
  /** False with no cap: nothing is recorded, so the caller need not report `sentAt`. */
  readonly counted: boolean;
  /** The request left at `epochMs` (later than the grant): count it from then. */
  sentAt(epochMs: number): void;
}

const NO_SLOT: LimiterSlot = { counted: false, sentAt: () => undefined };

function windowLimit(rate: number): number {
  return Math.max(1, Math.floor(rate));
}

function checkRate(rate: number): number {
  if (!Number.isFinite(rate) || rate < 0) throw new RangeError(`rate must be a number >= 0, got ${rate}`);
  return rate;
}
