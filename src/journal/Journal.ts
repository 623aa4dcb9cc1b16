import type {
  AuditLine,
  CallRecord,
  DirectoryEntry,
  JournalTables,
  JournalWrite,
  MailRecord,
  PayerRecord,
  SignatureRecord,
  Store,
} from '../store/Store.js';

/** What the journal knows of one call: sent and maybe in doubt, or done with the answer that filled the result. */
export type JournalEntry = CallRecord;

export interface JournalLoad {
  /** The run before this one closed the journal (every record it wrote reached the disk). */
  closedCleanly: boolean;
  ms: number;
}

/**
 * The journal of calls that makes re-runs and crashes safe, over the store: each bank account create is recorded
 * before it goes out (`sent`, written at once) and after its answer (`done`). The other records of an answer's work
 * are written together once that work is done (the callbacks queued when they were added), or with a `sent` before
 * that: one transaction for what an answer adds, not one each. A kill loses at most the records of that work, as it
 * would lose the answers still on their way: each leaves its call in doubt or its payer unrecorded, which the next
 * run settles by reading the service. Holds no personal data: calls and payers are named by hashes, answers are ids,
 * links and statuses.
 */
export class Journal {
  /** Records not yet written, by what they are of: the latest wins, and a read sees them first. */
  private pending = new Map<string, JournalWrite>();
  /** Records being written (a store on a server answers later): read from here until the store has them. */
  private readonly inFlight = new Map<string, JournalWrite>();
  /** Records whose write failed (the journal failed): this run still reads them from here. */
  private readonly unwritten = new Map<string, JournalWrite>();
  private flushQueued = false;
  /** Payers' directory entries not yet written, by clientUserId: they wait for the next write (putDirectory). */
  private readonly directory = new Map<string, JournalWrite>();
  /** Every write made so far, settled: close() waits for them before it marks the journal closed. */
  private writes: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private closed = false;
  private readonly settings = new Map<string, string | undefined>();
  /** Audit lines queued so far: each is a record of its own, never replaced by a later one. */
  private lines = 0;
  /** Rows waiting for room: told as writes land. */
  private waitingForRoom: Array<() => void> = [];

  /**
   * The run before this one closed the journal: every record it wrote reached the disk (its close is synced). After a
   * crash, a kill or a machine going down, the last second's records may be gone, `sent` ones among them.
   */
  closedCleanly = false;

  /**
   * Called once, with the first write error (disk full, permission). The journal then writes nothing more, and a
   * call it could not record must not go out: the run stops sending. Never thrown into a call that already succeeded:
   * its answer must still reach results.csv.
   */
  onFailure: ((error: Error) => void) | undefined;

  private constructor(
    private readonly store: Store,
    readonly tables: JournalTables,
  ) {}

  /** The journal could not read or write its store: the run has been told to stop (onFailure). */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Where the journal is kept, for messages: the store's file, or its database's URL without the password. */
  get location(): string {
    return this.store.location;
  }

  /** Opens the service's journal in the store (which it then owns, and closes with it), marked open until close(). */
  static async open(store: Store, service: string): Promise<{ journal: Journal; load: JournalLoad }> {
    const started = performance.now();
    const journal = new Journal(store, store.journal(service));
    try {
      journal.closedCleanly = (await journal.tables.setting(CLOSED)) === '1';
      journal.settings.set(GATE, await journal.tables.setting(GATE));
      // From now until close() the journal is open: a run that dies meanwhile leaves it so.
      await journal.tables.write([{ setting: CLOSED, value: undefined }]);
    } catch (error) {
      await store.close();
      throw error;
    }
    openJournals.add(journal);
    if (!flushingOnExit) process.on('exit', flushOpenJournals);
    flushingOnExit = true;
    return { journal, load: { closedCleanly: journal.closedCleanly, ms: Math.round(performance.now() - started) } };
  }

  async get(callKey: string): Promise<JournalEntry | undefined> {
    const kept = this.kept(`c${callKey}`);
    if (kept !== null) return kept && 'call' in kept ? kept.record : undefined;
    return this.read(() => this.tables.call(callKey));
  }

  /**
   * Records the call as sent, at once: before it goes out. Resolves only once the record is in the store; rejects
   * otherwise (the journal failed, or is closed), and then the call must not go out. A call already done stays done.
   */
  async sent(callKey: string, note?: Record<string, string>): Promise<void> {
    if ((await this.get(callKey))?.state === 'done') return;
    if (this.failure !== undefined || this.closed) throw new Error('the journal cannot record this call');
    const record: CallRecord = note === undefined ? { state: 'sent' } : { state: 'sent', answer: note };
    this.queue(`c${callKey}`, { call: callKey, record });
    // With what waits; a write that fails has stopped the run (onFailure), and this call does not go out.
    await this.flush();
    if (this.failure !== undefined) throw new Error('the journal cannot record this call');
    // Nor when the hold it was written under lapsed since (the process was stopped between the two): another may act.
    if (!this.store.stillHeld()) throw new Error('the hold of the service and key was lost: this call does not go out');
  }

  done(callKey: string, status: number, answer: Record<string, string>): void {
    this.queue(`c${callKey}`, { call: callKey, record: { state: 'done', status, answer } });
  }

  /**
   * Records that the call certainly changed nothing (a field error, a 429 given up on): neither done nor in doubt.
   * A call already done stays done; a record that cannot be written leaves the call in doubt, the safe side.
   */
  async notDone(callKey: string): Promise<void> {
    const entry = await this.get(callKey);
    if (entry === undefined || entry.state === 'done') return;
    if (this.failure === undefined) this.queue(`c${callKey}`, { call: callKey, record: undefined });
  }

  async payer(payerKey: string): Promise<PayerRecord | undefined> {
    const kept = this.kept(`p${payerKey}`);
    if (kept !== null) return kept && 'payer' in kept ? kept.record : undefined;
    return this.read(() => this.tables.payer(payerKey));
  }

  /** How the payer's agreement was signed, where the store has a record of it (the payer's page writes one). */
  async signature(clientUserId: string): Promise<SignatureRecord | undefined> {
    const kept = this.kept(`a${clientUserId}`);
    if (kept !== null) return kept && 'signature' in kept ? kept.signature : undefined;
    return this.read(async () =>
      (await this.store.directory(this.tables.service).signatures([clientUserId])).get(clientUserId),
    );
  }

  /** Notes how an agreement this run completed was signed, with the journal's next write (the first record stands). */
  putSignature(signature: SignatureRecord): void {
    this.queue(`a${signature.clientUserId}`, { signature });
  }

  /**
   * A line of the audit trail, with the journal's next write: in the store exactly when the records queued beside it
   * are (the same transaction), so a kill loses the line only with what it tells of.
   */
  audit(line: AuditLine): void {
    this.queue(`l${this.lines++}`, { audit: line });
  }

  /** A mail to a payer that this run's records call for, with them: written only where its step has no record yet. */
  mail(mail: MailRecord): void {
    this.queue(`m${mail.clientUserId}\u0000${mail.step}`, { mail });
  }

  /** A read of the store; one that fails (the database gone) stops the run as a failed write does. */
  private async read<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      this.fail(error);
      throw error;
    }
  }

  putPayer(payerKey: string, record: PayerRecord, clientUserId?: string): void {
    this.queue(`p${payerKey}`, { payer: payerKey, record, clientUserId });
  }

  /**
   * Who the payer is. Not worth a transaction of its own (a re-run of rows done before writes nothing else): it goes
   * with the journal's next write, or with a hundred others. A kill may lose the last of them, which the next run of
   * the file writes again.
   */
  putDirectory(entry: DirectoryEntry): void {
    if (this.failure !== undefined || this.closed) return;
    this.directory.set(entry.clientUserId, { directory: entry });
    if (this.directory.size >= DIRECTORY_BATCH) this.flushSoon();
  }

  /**
   * Who these payers are, as the payer directory has them once this run's entries are written: what report.html
   * names them by.
   */
  async directoryEntries(clientUserIds: readonly string[]): Promise<Map<string, DirectoryEntry>> {
    await this.flush();
    // Not through read(): a report that cannot name its payers shows their ids, and the run is not stopped for it.
    return this.store.directory(this.tables.service).entries(clientUserIds);
  }

  /** What the journal knows of the service's KYC gate. */
  gate(): string | undefined {
    return this.settings.get(GATE);
  }

  putGate(value: string): void {
    this.settings.set(GATE, value);
    this.queue(`s${GATE}`, { setting: GATE, value });
  }

  /** A record not yet in the store: the write (null when there is none). */
  private kept(id: string): JournalWrite | undefined | null {
    return this.pending.get(id) ?? this.inFlight.get(id) ?? this.unwritten.get(id) ?? null;
  }

  private queue(id: string, write: JournalWrite): void {
    if (this.failure !== undefined || this.closed) {
      this.unwritten.set(id, write);
      return;
    }
    this.pending.delete(id); // the latest goes last, after what it may depend on
    this.pending.set(id, write);
    this.flushSoon();
  }

  private flushSoon(): void {
    if (this.flushQueued) return;
    // Once the callbacks queued now have run: the records the work on an answer adds go out together, right after
    // it. An immediate would wait for the next turn of the event loop, and keep them in memory, where a kill loses
    // them, that much longer.
    this.flushQueued = true;
    process.nextTick(() => {
      this.flushQueued = false;
      this.flush();
    });
  }

  /**
   * Writes the records waiting, in one transaction; a failed write keeps them in memory for this run. The embedded
   * store has written them when this returns (so an exit handler can call it); its promise carries the outcome.
   */
  flush(): Promise<void> {
    if (this.pending.size === 0 && this.directory.size === 0) return Promise.resolve();
    const batch = this.pending;
    this.pending = new Map();
    for (const [id, write] of this.directory) batch.set(`d${id}`, write);
    this.directory.clear();
    if (this.failure !== undefined) {
      for (const [id, write] of batch) this.unwritten.set(id, write);
      return Promise.resolve();
    }
    for (const [id, write] of batch) this.inFlight.set(id, write);
    const landed = () => {
      // Unless a later record of the same thing went out meanwhile: that one is read from here until it lands.
      for (const [id, write] of batch) if (this.inFlight.get(id) === write) this.inFlight.delete(id);
      if (this.inFlight.size < MOST_UNWRITTEN) for (const go of this.waitingForRoom.splice(0)) go();
    };
    const written = this.tables.write([...batch.values()]).then(landed, (error: unknown) => {
      for (const [id, write] of batch) this.unwritten.set(id, write);
      landed();
      this.fail(error);
    });
    this.writes = this.writes.then(() => written);
    return written;
  }

  /**
   * Resolves once few enough records are on their way to the store: a store on a server may write slower than a run
   * records, and then the run's next row waits for it rather than its records piling up in memory (the embedded
   * store writes as it is asked: never a wait).
   */
  async room(): Promise<void> {
    while (this.inFlight.size >= MOST_UNWRITTEN && this.failure === undefined && !this.closed)
      await new Promise<void>((resolve) => this.waitingForRoom.push(resolve));
  }

  private fail(error: unknown): void {
    if (this.failure) return;
    this.failure = error as Error;
    for (const go of this.waitingForRoom.splice(0)) go();
    this.onFailure?.(this.failure);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    openJournals.delete(this);
    this.closed = true;
    for (const go of this.waitingForRoom.splice(0)) go();
    try {
      await this.flush();
      await this.writes;
      // Marked closed, unless a record of this run could not be written.
      if (this.failure === undefined && this.unwritten.size === 0)
        await this.tables.write([{ setting: CLOSED, value: '1' }]);
    } catch {
      // the journal stays marked open: the next run reads what it cannot be sure of
    } finally {
      await this.store.close();
    }
  }
}

/** Directory entries that are written together even when nothing else of the journal is (one statement's worth). */
const DIRECTORY_BATCH = 100;

/** Records on their way to the store past which a run's next row waits (a few MB of them). */
const MOST_UNWRITTEN = 2000;

/** The settings the journal keeps: the service's KYC gate, and the mark a run leaves when it closes the journal. */
const GATE = 'gate';
const CLOSED = 'closed';

const openJournals = new Set<Journal>();
let flushingOnExit = false;

/**
 * A process that exits without closing its journal (a second Ctrl-C, an error nothing caught) runs no more
 * callbacks: the records still waiting are written here, as they would have been at once before they waited.
 */
function flushOpenJournals(): void {
  for (const journal of openJournals) journal.flush();
}
