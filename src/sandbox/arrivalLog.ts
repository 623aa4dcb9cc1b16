// When API requests arrived, as the sandbox saw them. A benchmark checks that a client capped at R
// requests/s never put more than R into any one-second window; the log is bounded so a long run
// cannot grow the sandbox's memory without limit (only the latest `capacity` arrivals are kept).

export class ArrivalLog {
  private readonly times: Float64Array;
  private start = 0;
  private count = 0;

  constructor(readonly capacity = 200_000) {
    this.times = new Float64Array(capacity);
  }

  /** `at` in epoch milliseconds (fractional); calls come in non-decreasing order. */
  record(at: number): void {
    if (this.count < this.capacity) {
      this.times[(this.start + this.count) % this.capacity] = at;
      this.count += 1;
    } else {
      this.times[this.start] = at;
      this.start = (this.start + 1) % this.capacity;
    }
  }

  get size(): number {
    return this.count;
  }

  /** The retained arrivals, oldest first. */
  toArray(): number[] {
    const out: number[] = new Array<number>(this.count);
    for (let i = 0; i < this.count; i += 1) out[i] = this.at(i);
    return out;
  }

  /** The most arrivals in any half-open window [t, t + windowMs). */
  maxInWindow(windowMs: number): number {
    if (!(windowMs > 0)) return 0;
    let best = 0;
    let head = 0;
    for (let tail = 0; tail < this.count; tail += 1) {
      const end = this.at(tail);
      while (head < tail && end - this.at(head) >= windowMs) head += 1;
      best = Math.max(best, tail - head + 1);
    }
    return best;
  }

  clear(): void {
    this.start = 0;
    this.count = 0;
  }

  private at(i: number): number {
    return this.times[(this.start + i) % this.capacity] ?? 0;
  }
}
