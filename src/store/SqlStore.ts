import { SqlControls } from './SqlControls.js';
import { SqlDirectory } from './SqlDirectory.js';
import { SqlEvents } from './SqlEvents.js';
import { type Executor, SqlJournal } from './SqlJournal.js';
import { SqlPayers } from './SqlPayers.js';
import { SqlWaiting } from './SqlWaiting.js';
import { SqlWeb } from './SqlWeb.js';
import type {
  ControlTables,
  EventTables,
  Hold,
  JournalTables,
  PayerDirectoryTables,
  PayerTables,
  Store,
  WaitingTables,
  WebTables,
} from './Store.js';
import type { Holder } from './holder.js';

/** What both backends share: the same tables over the executor each gives. */
export abstract class SqlStore implements Store {
  abstract readonly location: string;
  abstract readonly sql: Executor;
  abstract hold(service: string, holder: Holder, using: string): Promise<Hold>;
  abstract close(): Promise<void> | void;
  /** Payers a query of the web page may read at once (PayerTables.span): a server's, all of them. */
  protected readonly payerSpan: number = Number.MAX_SAFE_INTEGER;

  journal(service: string): JournalTables {
    return new SqlJournal(this.sql, service);
  }

  events(service: string): EventTables {
    return new SqlEvents(this.sql, service);
  }

  web(service: string): WebTables {
    return new SqlWeb(this.sql, service);
  }

  waiting(service: string): WaitingTables {
    return new SqlWaiting(this.sql, service);
  }

  payers(service: string): PayerTables {
    return new SqlPayers(this.sql, service, this.payerSpan);
  }

  directory(service: string): PayerDirectoryTables {
    return new SqlDirectory(this.sql, service);
  }

  controls(service: string): ControlTables {
    return new SqlControls(this.sql, service);
  }

  /** Whether what this store writes is still its holder's to write (a store not written under a hold: always). */
  stillHeld(): boolean {
    return true;
  }

  async services(): Promise<string[]> {
    const rows = await this.sql.all("SELECT service FROM journal_settings WHERE name = 'opened' ORDER BY service", []);
    return rows.map((row) => String(row['service']));
  }
}

/**
 * A store open elsewhere, as one holder writes it: the same tables, over its own executor (a shared server's checks
 * the hold in every batch it writes). Closing it waits for its writes and closes nothing: its owner does.
 */
export class BorrowedStore extends SqlStore {
  constructor(
    private readonly owner: Store,
    readonly sql: Executor,
    private readonly settle: () => Promise<unknown> = async () => undefined,
    private readonly held: () => boolean = () => true,
  ) {
    super();
  }

  override stillHeld(): boolean {
    return this.held();
  }

  get location(): string {
    return this.owner.location;
  }

  hold(service: string, holder: Holder, using: string): Promise<Hold> {
    return this.owner.hold(service, holder, using);
  }

  async close(): Promise<void> {
    await this.settle();
  }
}
