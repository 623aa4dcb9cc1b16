/**
 * Hands finished items on in the order they were reserved, whatever order they finish in: results are
 * written in input order while rows complete concurrently. Only rows that finished ahead of a slower one
 * wait here, and the run bounds how many rows may be open at once, so this buffer is bounded too.
 *
 * `unwritten` counts every item reserved and not yet written, including those queued behind a slow write: a
 * reader faster than the writer (validate reads a million rows far faster than it writes them) must wait
 * for the writes too, or the queue of writes grows with the file (bench/RESULTS.md, memory).
 */
export class OrderedSink<T> {
  private nextToReserve = 0;
  private nextToEmit = 0;
  /** Items whose emit has finished (or was skipped after an error). */
  private written = 0;
  private readonly unwrittenWaiters: Array<{ n: number; resolve: () => void }> = [];
  private readonly waiting = new Map<number, T>();
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly emit: (item: T) => Promise<void> | void) {}

  reserve(): number {
    return this.nextToReserve++;
  }

  complete(seq: number, item: T): void {
    this.waiting.set(seq, item);
    const ready: T[] = [];
    while (this.waiting.has(this.nextToEmit)) {
      ready.push(this.waiting.get(this.nextToEmit)!);
      this.waiting.delete(this.nextToEmit);
      this.nextToEmit++;
    }
    for (const next of ready) {
      this.chain = this.chain
        .then(() => (this.error ? undefined : this.emit(next)))
        .catch((error: unknown) => {
          // Keep the first failure (a full disk): the run stops reading and reports it, instead of crashing.
          this.error ??= error as Error;
        })
        .then(() => {
          this.written++;
          this.wake();
        });
    }
  }

  /** The first error an emit threw, if any; nothing more is emitted after it. */
  error: Error | undefined;

  /** Items reserved but not yet handed on. */
  get open(): number {
    return this.nextToReserve - this.nextToEmit;
  }

  /** Items reserved but not yet written: the open ones and those handed on whose write has not finished. */
  get unwritten(): number {
    return this.nextToReserve - this.written;
  }

  /** Resolves once at most `n` items are unwritten, or once writing failed (see `error`). */
  whenUnwrittenAtMost(n: number): Promise<void> {
    if (this.error || this.unwritten <= n) return Promise.resolve();
    return new Promise<void>((resolve) => this.unwrittenWaiters.push({ n, resolve }));
  }

  private wake(): void {
    for (let i = this.unwrittenWaiters.length - 1; i >= 0; i -= 1) {
      const waiter = this.unwrittenWaiters[i]!;
      if (!this.error && this.unwritten > waiter.n) continue;
      this.unwrittenWaiters.splice(i, 1);
      waiter.resolve();
    }
  }

  /** Resolves when everything completed so far has been emitted; rejects if emitting failed. */
  async flush(): Promise<void> {
    await this.chain;
    if (this.error) throw this.error;
  }
}
