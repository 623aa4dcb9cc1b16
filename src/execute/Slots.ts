/**
 * At most `size` at once; the rest wait in turn, first come first served. What p-limit does (and `status` uses it),
 * without its promises and microtask hops per task: under every request and every row of a run they cost more than
 * the limit itself. A free slot is taken at once, with no promise at all.
 */
export class Slots {
  private active = 0;
  private waiters: Array<(() => void) | undefined> = [];
  /**
   * Waiters before this index have had their turn: the queue is cut once they are most of it, not shifted per turn
   * (a run keeps hundreds of rows waiting for a slot from its start to its end).
   */
  private next = 0;

  constructor(private readonly size: number) {}

  /** Undefined when a slot is free and now taken; otherwise a promise that resolves when one is handed over. */
  take(): Promise<void> | undefined {
    if (this.active < this.size) {
      this.active++;
      return undefined;
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Gives a slot back: to the first waiter if there is one. */
  give(): void {
    if (this.next === this.waiters.length) {
      this.active--;
      return;
    }
    const turn = this.waiters[this.next]!;
    this.waiters[this.next++] = undefined;
    if (this.next >= 1024 && 2 * this.next >= this.waiters.length) {
      this.waiters = this.waiters.slice(this.next);
      this.next = 0;
    }
    turn();
  }

  /** `task` in a slot: run at once if one is free, after the waiters before it otherwise. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    const wait = this.take();
    if (wait !== undefined) await wait;
    try {
      return await task();
    } finally {
      this.give();
    }
  }
}
