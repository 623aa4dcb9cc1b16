// What the rate adaptation reads its decisions from: the requests sent and their answers over the last few seconds,
// counted per 100 ms by when each request was sent, and whether the last answers were 429s.

const BUCKET_MS = 100;
/** Ten buckets make a second. */
const SECOND = 10;
/** The last three seconds and the bucket still filling: a decrease looks at the busiest second in them. */
const BUCKETS = 31;
/** Answers remembered for the 429 share before a decrease and while 429s are taken as noise. */
export const RECENT = 40;
/**
 * Answers in a second below which what the server accepted in it says nothing of its limit (one taken and one 429 is
 * as likely a 429 that has nothing to do with the rate). A burst of the run's first calls is more than this, so even
 * a tier of 2 a second shows as what it is.
 */
const MIN_BOUND_SAMPLE = 10;

export class TrafficRecord {
  readonly #sent = new Buckets();
  /** Answers other than 429, by when their request was sent. */
  readonly #accepted = new Buckets();
  /** Every answer, by when its request was sent. */
  readonly #answered = new Buckets();
  #firstSentAt = Number.POSITIVE_INFINITY;
  /** The last answers, true for a 429 (a ring). */
  readonly #recent: boolean[] = [];
  #recentNext = 0;

  /** A request went out at `at` (epoch ms). */
  sent(at: number): void {
    if (at < this.#firstSentAt) this.#firstSentAt = at;
    this.#sent.add(at);
  }

  /** The request sent at `sentAt` got an HTTP answer, a 429 or not. */
  answered(sentAt: number, throttled: boolean): void {
    this.#answered.add(sentAt);
    if (!throttled) this.#accepted.add(sentAt);
    if (this.#recent.length < RECENT) this.#recent.push(throttled);
    else this.#recent[this.#recentNext] = throttled;
    this.#recentNext = (this.#recentNext + 1) % RECENT;
  }

  /**
   * Requests per second really sent, counted over the last whole second and the part of the current 100 ms
   * bucket gone by (or since sending began, when that is less).
   */
  sentRate(now: number): number {
    const current = Math.floor(now / BUCKET_MS);
    const from = Math.max((current - SECOND) * BUCKET_MS, this.#firstSentAt);
    return (this.#sent.count(current, SECOND + 1) * 1000) / Math.max(BUCKET_MS, now - from);
  }

  /** The most requests sent in any one second the record still holds. */
  busiestSent(now: number): number {
    return this.#sent.busiest(now);
  }

  /**
   * 0.9 x the most the server accepted in any second whose requests have (nearly) all been answered; Infinity when
   * none has. Under a limit of L a second no second holds more than L accepted requests. A second still waiting for
   * most of its answers (the first burst of a run) says nothing yet.
   */
  acceptedBound(now: number): number {
    const current = Math.floor(now / BUCKET_MS);
    let most: number | undefined;
    for (let end = current - BUCKETS + SECOND; end <= current; end += 1) {
      const answered = this.#answered.count(end, SECOND);
      if (answered < MIN_BOUND_SAMPLE || answered < 0.8 * this.#sent.count(end, SECOND)) continue;
      most = Math.max(most ?? 0, this.#accepted.count(end, SECOND));
    }
    return most === undefined ? Number.POSITIVE_INFINITY : 0.9 * most;
  }

  /** How many of the last answers are remembered (at most RECENT). */
  get recentAnswers(): number {
    return this.#recent.length;
  }

  /** The share of 429s among the last answers. */
  recentShare(): number {
    if (this.#recent.length === 0) return 0;
    return this.#recent.filter(Boolean).length / this.#recent.length;
  }
}

/** Counts per 100 ms bucket over the last few seconds (a ring indexed by bucket number). */
class Buckets {
  readonly #counts = new Array<number>(BUCKETS).fill(0);
  readonly #bucketOf = new Array<number>(BUCKETS).fill(-1);

  add(at: number): void {
    const bucket = Math.floor(at / BUCKET_MS);
    const i = bucket % BUCKETS;
    // An answer for a request sent longer ago than the ring reaches counts nowhere.
    if (this.#bucketOf[i] === bucket) this.#counts[i] = (this.#counts[i] ?? 0) + 1;
    else if ((this.#bucketOf[i] ?? -1) < bucket) {
      this.#bucketOf[i] = bucket;
      this.#counts[i] = 1;
    }
  }

  /** Everything counted in the `buckets` buckets up to bucket number `end`, that one included. */
  count(end: number, buckets: number): number {
    let count = 0;
    for (let bucket = end - buckets + 1; bucket <= end; bucket += 1) {
      const i = bucket % BUCKETS;
      if (this.#bucketOf[i] === bucket) count += this.#counts[i] ?? 0;
    }
    return count;
  }

  /** The most counted in any one second (ten buckets in a row) that the ring still holds. */
  busiest(now: number): number {
    const current = Math.floor(now / BUCKET_MS);
    let most = 0;
    for (let end = current - BUCKETS + SECOND; end <= current; end += 1) most = Math.max(most, this.count(end, SECOND));
    return most;
  }
}
