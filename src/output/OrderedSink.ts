/**
 * Hands finished items on in the order they were reserved, whatever order they finish in: results are
 * written in input order while rows complete concurrently. Only rows that finished ahead of a slower one
 * wait here, and the run bounds how many rows may be open at once, so this buffer is bounded too.
 */
export class OrderedSink<T> {
  private nextToReserve = 0;
  private nextToEmit = 0;
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
      this.chain = this.chain.then(() => (this.error ? undefined : this.emit(next))).catch((error: unknown) => {
        // Keep the first failure (a full disk): the run stops reading and reports it, instead of crashing.
        this.error ??= error as Error;
      });
    }
  }

  /** The first error an emit threw, if any; nothing more is emitted after it. */
  error: Error | undefined;

  /** Items reserved but not yet handed on. */
  get open(): number {
    return this.nextToReserve - this.nextToEmit;
  }

  /** Resolves when everything completed so far has been emitted; rejects if emitting failed. */
  async flush(): Promise<void> {
    await this.chain;
    if (this.error) throw this.error;
  }
}
