import type { Clock } from './RateLimiter.js';

// The service blocks a client and its address after a sustained breach of its rate limit (its documents: for 5
// minutes), and says no more than 429 meanwhile. A call's retries are spent in seconds, so every row would end
// failed though nothing in it is wrong. Nothing but 429s for longer than a call's retries could wait is taken for
// that block: sending pauses, one call at a time probes whether it is over (no more often than `probeEveryMs`, as a
// request may extend a block), and the rest wait for its answer. Past `maxWaitMs` the client stops: its rows are
// pending for a later run, never to fix.

export interface BlockTiming {
  /** Nothing but 429s for this long is the block. */
  afterMs: number;
  /** At most one probe this often while blocked. */
  probeEveryMs: number;
  /** The longest a block is waited out (--max-block-wait); then the client stops. */
  maxWaitMs: number;
}

export const DEFAULT_BLOCK_TIMING: Omit<BlockTiming, 'maxWaitMs'> = { afterMs: 30_000, probeEveryMs: 60_000 };

/** What the block watch tells the run, to say it: blocked (again after a probe), or lifted. */
export type BlockNews =
  | { kind: 'blocked'; probes: number; nextProbeInMs: number; givesUpInMs: number }
  | { kind: 'lifted'; waitedMs: number };

export class ServiceBlock {
  /** The first 429 since the last answer that was not one. */
  private streakSince: number | undefined;
  private blockedSince: number | undefined;
  private nextProbeAt = 0;
  private probeOut = false;
  private probes = 0;
  private waiters: Array<() => void> = [];
  /** The deadline passed: the probe out now, or the next, is the last. */
  private lastChance = false;
  private timer: NodeJS.Timeout | undefined;
  private giveUp: NodeJS.Timeout | undefined;

  constructor(
    private readonly timing: BlockTiming,
    private readonly clock: Clock,
    private readonly tell: (news: BlockNews) => void,
    /** Stops the client once the block outlasts `maxWaitMs`. */
    private readonly stop: (message: string) => void,
  ) {}

  get blocked(): boolean {
    return this.blockedSince !== undefined;
  }

  /**
   * A call answered nothing but 429 since `since`, for longer than a block is waited out, while other calls were
   * answered (no block was declared): the service refuses it as it would in a block. The client stops, its rows
   * pending, rather than retry it without end.
   */
  refusedSince(since: number): boolean {
    if (this.clock.now() - since < this.timing.maxWaitMs) return false;
    this.stop(this.giveUpMessage());
    return true;
  }

  /**
   * An HTTP answer; `probe`: to the attempt that probed the block. Anything but a 429 ends a streak of them, and the
   * block. While blocked, a 429 to an attempt sent before the block says nothing new; the probe's sets the next.
   */
  answered(status: number, probe: boolean): void {
    const now = this.clock.now();
    if (status !== 429) {
      this.streakSince = undefined;
      if (this.blockedSince !== undefined) this.lift(now);
      return;
    }
    this.streakSince ??= now;
    if (this.blockedSince === undefined) {
      if (now - this.streakSince >= this.timing.afterMs) this.block(now);
    } else if (probe) this.probeEnded(now);
  }

  /** An attempt that got no answer at all: a probe that failed so is tried again at the next turn. */
  unanswered(probe: boolean): void {
    if (this.blockedSince !== undefined && probe) this.probeEnded(this.clock.now());
  }

  /**
   * Before an attempt goes out: at once unless blocked; while blocked, when it is this call's turn to probe (true),
   * or the block is over. Resolves early once `signal` aborts (the client stopped: the attempt is then not sent).
   */
  async turn(signal: AbortSignal): Promise<boolean> {
    while (this.blockedSince !== undefined && !signal.aborted) {
      if (!this.probeOut) {
        const waitMs = this.nextProbeAt - this.clock.now();
        if (waitMs <= 0) {
          this.probeOut = true;
          this.probes += 1;
          return true;
        }
        // A timer may fire a little before the clock says the time has come: it is set again for the rest.
        this.wakeIn(waitMs);
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal.removeEventListener('abort', wake);
          resolve();
        };
        this.waiters.push(wake);
        signal.addEventListener('abort', wake, { once: true });
      });
    }
    return false;
  }

  /** Lets every timer go (the client is done). */
  close(): void {
    clearTimeout(this.timer);
    clearTimeout(this.giveUp);
    this.wakeAll();
  }

  private block(now: number): void {
    this.blockedSince = now;
    this.probes = 0;
    this.lastChance = false;
    // At the deadline, one last probe (now, whenever the next was due): its 429 ends the wait.
    this.giveUp = setTimeout(() => {
      this.lastChance = true;
      if (!this.probeOut) this.nextProbeAt = this.clock.now();
      this.wakeAll();
    }, this.timing.maxWaitMs);
    this.giveUp.unref();
    this.probeEnded(now);
  }

  /** The probe was refused (or never answered): the next one after `probeEveryMs`. */
  private probeEnded(now: number): void {
    this.probeOut = false;
    if (this.lastChance) {
      this.stop(this.giveUpMessage());
      this.close();
      return;
    }
    this.nextProbeAt = now + this.timing.probeEveryMs;
    this.wakeIn(this.timing.probeEveryMs);
    this.tell({
      kind: 'blocked',
      probes: this.probes,
      nextProbeInMs: this.timing.probeEveryMs,
      givesUpInMs: this.blockedSince! + this.timing.maxWaitMs - now,
    });
  }

  private giveUpMessage(): string {
    const seconds = Math.round(this.timing.maxWaitMs / 1000);
    const wait = seconds >= 60 && seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
    return (
      `stopped: the service blocked this key and address for longer than --max-block-wait (${wait}); ` +
      'the rows not sent are pending: run them again later'
    );
  }

  /** Every waiter wakes in `ms` (to see whose turn it is); an earlier timer is replaced. */
  private wakeIn(ms: number): void {
    clearTimeout(this.timer);
    // Not unref'd: while blocked, the calls waiting for their turn are all that is left to do.
    this.timer = setTimeout(() => this.wakeAll(), ms);
  }

  private lift(now: number): void {
    const waitedMs = now - this.blockedSince!;
    this.blockedSince = undefined;
    this.probeOut = false;
    clearTimeout(this.timer);
    clearTimeout(this.giveUp);
    this.tell({ kind: 'lifted', waitedMs });
    this.wakeAll();
  }

  private wakeAll(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
