import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, LockedError, PayerOnboardError } from '../core/errors.js';
import type { ReadingOptions } from '../input/InputFile.js';
import { type HeldJournal, type HoldSpec, holdJournal } from '../journal/holdJournal.js';
import { openInput, readingOptions } from '../input/openInput.js';
import { payerKeyOf } from '../journal/RowJournal.js';
import { journalPlace, stateDirs } from '../journal/stateDir.js';
import { StateLock } from '../journal/StateLock.js';
import { resolveConnection, resolveDatabaseUrl } from '../options/connection.js';
import { resolveRunOptions } from '../options/resolve.js';
import { loadColumnMap } from '../rows/columns.js';
import { makeRunId, placesOf } from '../pipeline/RunSession.js';
import type { RunContext, RunInput } from '../pipeline/run.js';
import type { Store, WaitingPlace } from '../store/Store.js';
import { type InboxPaths, inboxPaths, listFiles, oldestFirst, SettleTracker } from './folders.js';
import { Mappings, type SavedMapping } from './Mappings.js';
import { type FileOutcome, runInboxFile, settleIncoming } from './processFile.js';
import { settleWaiting, type WaitingRun, WaitingRows } from './waiting.js';

export type InboxRunInput = Omit<RunInput, 'inputs' | 'out'>;

type ServiceOf = Omit<HoldSpec, 'runId' | 'store'>;

export interface InboxSpec {
  dir: string;
  /** Seconds a file's size and mtime must stay the same before it is taken. */
  settle: number;
  /** Hours after a payer's last check before its waiting rows are run again. */
  recheckAfter: number;
  run?: InboxRunInput;
  onFile?: (outcome: FileOutcome) => void;
  /** The command holding the inbox, as a second one's refusal names it (default `inbox`). */
  holder?: 'inbox' | 'serve';
}

/**
 * One inbox folder held by this process (its lock taken): the steps a tick is made of, each taking files one at a
 * time through run(). `runInbox` loops over them; `serve` interleaves them with the rows its events name. Once a
 * file says the API is down, the key refused or the run interrupted, `going` is false and no step takes another.
 */
export class Inbox {
  readonly files: FileOutcome[] = [];
  going = true;
  /** Who held the service and key when a file last had to wait for it (another process sending with the key). */
  heldBy: string | undefined;
  /** The runs' --rate (0: no cap). */
  rateCap = 0;
  private readonly tracker: SettleTracker;

  private constructor(
    readonly paths: InboxPaths,
    readonly runInput: InboxRunInput,
    private readonly spec: InboxSpec,
    private context: RunContext,
    private readonly lock: StateLock,
    /** Where rows waiting on their payers are kept; none for a rehearsal (its sandbox ends with its run). */
    readonly waiting: WaitingRows | undefined,
    /** The service and key the inbox's runs send with, and where their journal is: worked out at the first need. */
    private readonly service: () => ServiceOf,
    /** How its runs read a file (`--encoding`, `--map`, ...): its header is read so to find what the page saved. */
    private readonly reading: ReadingOptions & { sheet?: string | undefined },
  ) {
    this.tracker = new SettleTracker(spec.settle * 1000);
  }

  static open(spec: InboxSpec, context: RunContext): Inbox {
    const cwd = context.cwd ?? process.cwd();
    const env = context.env ?? {};
    const root = resolve(cwd, spec.dir);
    if (!existsSync(root) || !statSync(root).isDirectory())
      throw new ConfigError(`inbox: ${spec.dir} is not a folder (create it, with incoming/ inside for the files)`);
    // The journal lives with the inbox unless told otherwise, so a resume after a crash finds it whatever cron's cwd.
    const runInput: InboxRunInput = { ...spec.run };
    if (runInput.stateDir === undefined && !env.PAYER_ONBOARD_STATE_DIR)
      runInput.stateDir = join(root, '.payer-onboard');
    // Bad flags are reported now, not after the first file has been moved.
    const options = resolveRunOptions({ ...runInput, inputs: ['(inbox)'] }, env);
    const paths = inboxPaths(root);
    const say = (line: string) => context.stderr?.write(`${line}\n`);
    const service = (): ServiceOf => {
      const places = placesOf(context);
      const { baseUrl, apiKey } = resolveConnection(options, env, places.cwd);
      const databaseUrl = resolveDatabaseUrl(options, env, places.cwd);
      return { state: stateDirs(options.stateDir, places), places, baseUrl, apiKey, databaseUrl };
    };
    const where = () => {
      const { state, baseUrl, apiKey, databaseUrl } = service();
      return journalPlace(state, baseUrl, apiKey, databaseUrl);
    };
    const reading = readingOptions(options, cwd);
    // A rehearsal keeps no rows waiting: its sandbox ends with its run.
    const waiting = options.sandbox ? undefined : new WaitingRows(where, reading, paths, say);
    const holder = spec.holder ?? 'inbox';
    const lock = StateLock.acquire(join(root, 'lock'), holder, { what: holder, using: root });
    const inbox = new Inbox(paths, runInput, spec, context, lock, waiting, service, {
      ...reading,
      sheet: options.sheet,
    });
    inbox.rateCap = options.rate;
    return inbox;
  }

  /** Whether any file waits in processing/, incoming/ or (from an older version) waiting/: work to hold the key for. */
  hasFiles(): boolean {
    const { processing, incoming, waiting } = this.paths;
    return [processing, incoming, waiting].some((dir) => existsSync(dir) && listFiles(dir).length > 0);
  }

  /**
   * Does `work` holding the service and key through `store` (serve's, open for its life): every run of it, the rows
   * it keeps and the events it marks go through the one hold, which on a shared server checks every write is still
   * its own. Turned away (another process holds it), nothing is done and `heldBy` says by whom; the hold lost midway
   * (its lease taken over), nothing more is.
   */
  async holding(store: Store, work: () => Promise<void>): Promise<void> {
    let held: HeldJournal;
    try {
      held = await holdJournal({ ...this.service(), runId: this.spec.holder ?? 'inbox', store });
    } catch (error) {
      if (!(error instanceof LockedError)) throw error;
      this.heldBy = error.message;
      this.going = false;
      return;
    }
    held.onLost((why) => {
      this.going = false;
      this.context.stderr?.write(`inbox: ${why}; nothing more is sent\n`);
    });
    const context = this.context;
    this.context = { ...context, held };
    this.waiting?.share(held.place.open ?? store);
    try {
      await work();
    } finally {
      this.context = context;
      this.waiting?.share(store);
      await held.release();
    }
  }

  private get stopped(): boolean {
    return !this.going || Boolean(this.context.signal?.aborted);
  }

  /**
   * Files left in processing/ by a crash, resumed before anything new; and files an older version left in waiting/,
   * taken into the store before any event looks for their rows.
   */
  async resume(): Promise<void> {
    if (!this.runInput.dryRun) await this.waiting?.takeOldFiles(makeRunId(new Date()));
    for (const name of oldestFirst(this.paths.processing)) {
      if (this.stopped) return;
      await this.take(name);
    }
  }

  /**
   * The rows waiting whose payer was not checked for --recheck-after, run again, a file of them at a time (what an
   * older version left in waiting/ is taken into the store first).
   */
  async recheckDue(): Promise<void> {
    // A rehearsal sends nothing: its rows would all look done, and would stop waiting.
    if (this.runInput.dryRun || this.waiting === undefined) return;
    await this.waiting.takeOldFiles(makeRunId(new Date()));
    for (const run of await this.waiting.due(this.spec.recheckAfter * 3_600_000)) {
      if (this.stopped) return;
      await this.runKept(run);
    }
  }

  /**
   * One slice of a catch-up after serve could take no webhooks for a while: at most `limit` rows waiting whose payer
   * was last checked before `since`, from `after` on, run at half the rate cap (new files and events get the rest,
   * between slices). Returns the rows gone through and where the next slice starts (none: done).
   */
  async catchUpSlice(
    since: string,
    after: { fileId: string; seq: number },
    limit: number,
  ): Promise<{ rows: number; next?: { fileId: string; seq: number } }> {
    if (this.runInput.dryRun || this.waiting === undefined) return { rows: 0 };
    const slice = await this.waiting.checkedBefore(since, after, limit);
    const rate = this.rateCap / 2;
    for (const run of slice.runs) {
      if (this.stopped) return { rows: 0, next: after };
      await this.runKept(run, { rate });
    }
    // A run that stopped midway left its rows as they were: the slice is gone through again (its payers read since
    // are not among the rows due any more).
    if (this.stopped) return { rows: 0, next: after };
    return slice.next === undefined ? { rows: slice.rows } : { rows: slice.rows, next: slice.next };
  }

  /** The settled files of incoming/, oldest first. */
  async takeIncoming(): Promise<void> {
    for (const name of this.tracker.update(listFiles(this.paths.incoming), Date.now())) {
      if (this.stopped) return;
      this.tracker.forget(name);
      if (!claim(this.paths, name)) continue;
      await this.take(name);
    }
  }

  /** Where the rows of these payers (by the journal's key) wait. */
  async waitingOf(keys: readonly string[]): Promise<WaitingPlace[]> {
    return this.waiting === undefined ? [] : this.waiting.ofPayers(keys);
  }

  /** The rows of one kept file of these payers run again (the rest wait on as they were). */
  async runWaiting(fileId: string, only: readonly string[]): Promise<FileOutcome | undefined> {
    if (this.stopped || this.runInput.dryRun) return undefined;
    const places = await this.waitingOf(only.map(payerKeyOf));
    const seqs = places.filter((p) => p.fileId === fileId).map((p) => p.seq);
    return seqs.length === 0 ? undefined : this.runKept({ fileId, seqs });
  }

  async release(): Promise<void> {
    this.lock.release();
    await this.waiting?.close();
  }

  /** Kept rows as a file of their own, run; what the run left pending takes their place. */
  private async runKept(run: WaitingRun, pace?: { rate: number }): Promise<FileOutcome | undefined> {
    const waiting = this.waiting!;
    const prepared = await waiting.prepare(run);
    if (prepared === undefined) return undefined;
    const { file, path, dir } = prepared;
    try {
      const input = await this.inputFor(path, pace === undefined ? this.runInput : { ...this.runInput, ...pace });
      const ran = await runInboxFile(this.paths, 'waiting', path, file.name, input, this.context);
      // A file of kept rows the tool cannot read is in failed/ now, with its note: they wait no more.
      if ('outcome' in ran && ran.outcome.folder === 'failed') await waiting.replace(file, run.seqs, undefined);
      return this.settled(
        'outcome' in ran ? ran.outcome : await settleWaiting(this.paths, waiting, file, run.seqs, ran),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  private async take(name: string): Promise<FileOutcome> {
    const at = join(this.paths.processing, name);
    const ran = await runInboxFile(this.paths, 'processing', at, name, await this.inputFor(at), this.context);
    return this.settled('outcome' in ran ? ran.outcome : await settleIncoming(this.paths, name, ran, this.waiting));
  }

  /**
   * How a file is run: with the inbox's options, and what the web page saved for its columns (in any order) over
   * them: the fields of the columns it named, and its date format. A rehearsal (`--dry-run`, `--sandbox`) names no
   * service whose page could have saved any.
   */
  private async inputFor(path: string, input = this.runInput): Promise<InboxRunInput> {
    if (input.dryRun || this.waiting === undefined) return input;
    const web = await this.waiting.web();
    // No page saved anything: the file is not opened for its header.
    if (web === undefined || (await web.mappings()).size === 0) return input;
    let header: string[] | undefined;
    try {
      const opened = await openInput(path, this.reading);
      header = opened.header;
      for await (const _ of opened.records) break;
    } catch (error) {
      // The run reads it again, and says why it cannot.
      if (error instanceof PayerOnboardError) return input;
      throw error;
    }
    const saved = header === undefined ? undefined : await new Mappings(web).get(header);
    return saved === undefined ? input : withSaved(input, saved, placesOf(this.context).cwd);
  }

  private settled(outcome: FileOutcome): FileOutcome {
    this.files.push(outcome);
    this.heldBy = outcome.heldBy;
    this.context.stderr?.write(describe(outcome));
    this.spec.onFile?.(outcome);
    if (outcome.stop) this.going = false;
    return outcome;
  }
}

/**
 * The inbox's run options with a mapping saved on the web page over them: its columns beside the inbox's own `--map`
 * (the saved field of a column both name wins: it was chosen for these columns), and its date format for the inbox's.
 */
function withSaved(input: InboxRunInput, saved: SavedMapping, cwd: string): InboxRunInput {
  const own = input.map === undefined ? [] : [...loadColumnMap(input.map, cwd)];
  const columns = { ...Object.fromEntries(own), ...saved.columns };
  return {
    ...input,
    ...(Object.keys(columns).length === 0 ? {} : { map: JSON.stringify(columns) }),
    ...(saved.dateFormat === undefined ? {} : { dateFormat: saved.dateFormat }),
  };
}

/** incoming/ -> processing/ by rename; false when the file vanished (taken back by whoever dropped it). */
function claim(paths: InboxPaths, name: string): boolean {
  try {
    if (existsSync(join(paths.processing, name))) return false; // a resume of the same name is pending: next run
    renameSync(join(paths.incoming, name), join(paths.processing, name));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function describe(o: FileOutcome): string {
  const where = o.folder === 'processing' ? 'left in processing/' : `-> ${o.path}`;
  const results = o.results && o.results !== o.path ? `; results in ${o.results}/` : '';
  return `inbox: ${o.file}: exit ${o.exitCode}, ${where}${o.reason ? ` (${o.reason})` : ''}${results}\n`;
}
