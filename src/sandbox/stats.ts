import type { FaultKind } from './faults.js';
import { isRead, ROUTE_NAMES, type RouteName } from './routes.js';

// When API requests arrived, as the sandbox saw them. A benchmark checks that a client capped at R
// requests/s never put more than R into any one-second window; the log is bounded so a long run
// cannot grow the sandbox's memory without limit (only the latest `capacity` arrivals are kept).

class ArrivalLog {
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

// Counters the tests and benchmarks read through GET /__sandbox/stats or handle.stats().
// Only API requests count; the sandbox's own /__sandbox/* endpoints do not.

export interface SandboxStats {
  /** API requests received (every method and path outside /__sandbox). */
  requests: number;
  inFlight: number;
  /** Most API requests being handled at the same moment. */
  maxInFlight: number;
  /** Answers sent, by HTTP status (`{"200": 3, "429": 1}`). Resets and unanswered slow requests are not in it. */
  byStatus: Record<string, number>;
  /** API requests by the route their method and path name, every route listed (unknown paths are in none). */
  byRoute: Record<RouteName, number>;
  /** Requests to the two reads (GET), whatever they were answered. */
  reads: number;
  /** Reads answered 404: asked about a payer the service does not know. */
  readsNotFound: number;
  payersCreated: number;
  /** Create-compliance attempts (either path) for a clientUserId that already exists (either duplicates mode). */
  duplicatePayers: number;
  paymentDetailsCreated: number;
  /** Accounts created for a payer that already had one with the same currency and numbers. */
  duplicatePaymentDetails: number;
  /** Create payment details refused because the payer's KYC was not approved. */
  kycRefusals: number;
  /** Agreements refused because the payer's KYC was not approved (`--agreement-gate`). */
  agreementRefusals: number;
  /** Payers whose agreement went from not completed to completed. */
  agreementsCompleted: number;
  /** Successful agreement updates, repeats included. */
  agreementUpdates: number;
  /** Answers replayed for a repeated Idempotency-Key (the handler did not run again). */
  idempotentReplays: number;
  /** Repeated Idempotency-Key with a different body (answered 422). */
  idempotencyMismatches: number;
  /** 429s from the rate limit (not from faults or scripts), those of a block included. */
  rateLimited: number;
  /** 429s answered while a sustained breach blocked the client (`--block-seconds`). */
  blockedRequests: number;
  /** Random faults injected, by kind. */
  faults: Record<FaultKind, number>;
  /** Scripted steps used. */
  scripted: number;
  /** Webhook deliveries answered 2xx (a delivery sent twice counts twice). */
  webhooksSent: number;
  /** Webhook attempts after a delivery's first: its retries. */
  webhookRetries: number;
  /** Webhook deliveries given up after their last retry, as the service drops them. */
  webhooksDropped: number;
  /** Webhook deliveries lost on purpose, never sent (`--webhook-drop`). */
  webhooksLost: number;
  /** Most arrivals in any one-second window (over the retained arrivals). */
  maxArrivalsPerSecond: number;
  /** Epoch ms of the first and last retained arrival, null before any. */
  firstArrivalAt: number | null;
  lastArrivalAt: number | null;
  /** How many arrival times are retained (the log keeps the latest 200,000). */
  arrivalsRetained: number;
}

type Counter = Exclude<
  keyof SandboxStats,
  | 'inFlight'
  | 'maxInFlight'
  | 'byStatus'
  | 'byRoute'
  | 'faults'
  | 'maxArrivalsPerSecond'
  | 'firstArrivalAt'
  | 'lastArrivalAt'
  | 'arrivalsRetained'
>;

const emptyFaults = (): Record<FaultKind, number> => ({
  '429': 0,
  '500': 0,
  '503': 0,
  reset: 0,
  commit500: 0,
  slow: 0,
});
const emptyRoutes = (): Record<RouteName, number> =>
  Object.fromEntries(ROUTE_NAMES.map((r) => [r, 0])) as Record<RouteName, number>;

export class StatsRecorder {
  readonly arrivals = new ArrivalLog();
  private counters: Record<Counter, number> = StatsRecorder.zero();
  private byStatus = new Map<number, number>();
  private faults = emptyFaults();
  private byRoute = emptyRoutes();
  private inFlight = 0;
  private maxInFlight = 0;

  private static zero(): Record<Counter, number> {
    return {
      requests: 0,
      payersCreated: 0,
      duplicatePayers: 0,
      paymentDetailsCreated: 0,
      duplicatePaymentDetails: 0,
      kycRefusals: 0,
      agreementRefusals: 0,
      agreementsCompleted: 0,
      agreementUpdates: 0,
      reads: 0,
      readsNotFound: 0,
      idempotentReplays: 0,
      idempotencyMismatches: 0,
      rateLimited: 0,
      blockedRequests: 0,
      scripted: 0,
      webhooksSent: 0,
      webhookRetries: 0,
      webhooksDropped: 0,
      webhooksLost: 0,
    };
  }

  arrived(at: number): void {
    this.counters.requests += 1;
    this.arrivals.record(at);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
  }

  /** Called once per arrived request, whether it was answered, reset or abandoned. */
  left(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }

  answered(status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }

  /** A request whose method and path name a route, counted whether it is then refused (key, limit, fault) or served. */
  routed(route: RouteName): void {
    this.byRoute[route] += 1;
    if (isRead(route)) this.counters.reads += 1;
  }

  count(counter: Counter): void {
    this.counters[counter] += 1;
  }

  fault(kind: FaultKind): void {
    this.faults[kind] += 1;
  }

  snapshot(): SandboxStats {
    const arrivals = this.arrivals.toArray();
    return {
      ...this.counters,
      inFlight: this.inFlight,
      maxInFlight: this.maxInFlight,
      byStatus: Object.fromEntries([...this.byStatus].sort(([a], [b]) => a - b).map(([s, n]) => [String(s), n])),
      byRoute: { ...this.byRoute },
      faults: { ...this.faults },
      maxArrivalsPerSecond: this.arrivals.maxInWindow(1000),
      firstArrivalAt: arrivals[0] ?? null,
      lastArrivalAt: arrivals[arrivals.length - 1] ?? null,
      arrivalsRetained: arrivals.length,
    };
  }

  /** Clears everything except requests in flight (they are still being handled). */
  reset(): void {
    this.counters = StatsRecorder.zero();
    this.byStatus.clear();
    this.faults = emptyFaults();
    this.byRoute = emptyRoutes();
    this.maxInFlight = this.inFlight;
    this.arrivals.clear();
  }
}
