import type { Statement } from './SqlJournal.js';

/** The most statements one transaction of a group takes: a bigger backlog goes out in several. */
const MOST = 5000;

interface Group {
  batches: Array<readonly Statement[]>;
  size: number;
  /** Each batch's outcome, by its place in `batches`: undefined when it was committed. */
  outcomes: Promise<unknown[]>;
}

/**
 * Transactions one after the other, in the order asked; the batches asked while one is being written go out together
 * in the next (a group commit), each batch still all or nothing. On a server every statement is a round trip and every
 * commit a flush to its disk: a run that records faster than one transaction at a time would otherwise queue its
 * records in memory without bound, and write them long after it finished. A group that fails is written again a batch
 * a transaction, so that one batch's failure (a conflict with another process) is that batch's alone.
 */
export class GroupCommit {
  private next: Group | undefined;
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly commit: (statements: readonly Statement[]) => Promise<void>) {}

  /** Resolves once the statements are committed; rejects when they could not be. */
  async write(statements: readonly Statement[]): Promise<void> {
    let group = this.next;
    if (group === undefined || group.size >= MOST) {
      const made: Group = { batches: [], size: 0, outcomes: Promise.resolve([]) };
      made.outcomes = this.last.then(() => {
        // Going out now: what is asked from here on waits for the next group.
        if (this.next === made) this.next = undefined;
        return this.commitGroup(made.batches);
      });
      this.last = made.outcomes;
      this.next = made;
      group = made;
    }
    const place = group.batches.push(statements) - 1;
    group.size += statements.length;
    const failure = (await group.outcomes)[place];
    if (failure !== undefined) throw failure;
  }

  /** Once everything asked so far is committed (or failed). */
  settled(): Promise<unknown> {
    return this.last;
  }

  private async commitGroup(batches: ReadonlyArray<readonly Statement[]>): Promise<unknown[]> {
    try {
      await this.commit(batches.flat());
      return batches.map(() => undefined);
    } catch (error) {
      if (batches.length === 1) return [error];
      const outcomes: unknown[] = [];
      for (const batch of batches)
        outcomes.push(
          await this.commit(batch).then(
            () => undefined,
            (e: unknown) => e,
          ),
        );
      return outcomes;
    }
  }
}
