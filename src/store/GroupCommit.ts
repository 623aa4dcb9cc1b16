import type { Statement } from './SqlJournal.js';

/** The most statements one transaction of a group takes: a bigger backlog goes out in several. */
const MOST = 5000;

interface Group {
  statements: Statement[];
  committed: Promise<void>;
}

/**
 * Transactions one after the other, in the order asked; the batches asked while one is being written go out together
 * in the next (a group commit), each batch still all or nothing. On a server every statement is a round trip and every
 * commit a flush to its disk: a run that records faster than one transaction at a time would otherwise queue its
 * records in memory without bound, and write them long after it finished.
 */
export class GroupCommit {
  private next: Group | undefined;
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly commit: (statements: readonly Statement[]) => Promise<void>) {}

  /** Resolves once the statements are committed, with those of the batches grouped with them; rejects with them. */
  write(statements: readonly Statement[]): Promise<void> {
    let group = this.next;
    if (group === undefined || group.statements.length >= MOST) {
      const made: Group = { statements: [], committed: Promise.resolve() };
      made.committed = this.last.then(() => {
        // Going out now: what is asked from here on waits for the next group.
        if (this.next === made) this.next = undefined;
        return this.commit(made.statements);
      });
      this.last = made.committed.catch(() => undefined);
      this.next = made;
      group = made;
    }
    group.statements.push(...statements);
    return group.committed;
  }

  /** Once everything asked so far is committed (or failed). */
  settled(): Promise<unknown> {
    return this.last;
  }
}
