import { setImmediate } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { InputError } from '../core/errors.js';
import type { ReadingOptions } from '../input/InputFile.js';
import type { JournalPlace } from '../journal/openJournal.js';
import { openStore, storeMayHold } from '../store/openStore.js';
import type { Store, WaitingFile, WaitingPlace, WaitingTables, WebTables } from '../store/Store.js';
import { copyInto, type InboxPaths, listFiles, moveInto, writeNote } from './folders.js';
import type { FileOutcome, InboxRun } from './processFile.js';
import { readWaiting, readWaitingInChunks, writeWaiting } from './waitingFiles.js';

/** Rows written to the store in one transaction at most, when a whole file's are. */
const CHUNK_ROWS = 1000;

/** The hidden folders under waiting/ that a run of kept rows reads its file from. */
const RUN_FOLDER = '.run-';

/** Rows of one kept file to run again: the file, and the numbers of its rows. */
export interface WaitingRun {
  fileId: string;
  seqs: number[];
}

/**
 * The rows of an inbox waiting on their payers, kept in the store of its service and key: each file's rows by payer,
 * so that an event finds its payer's rows by the index, and a recheck the rows of payers not checked for a while.
 * A run of some of them is a file of just those rows, written in their own format; what it leaves pending takes
 * their place. The store is opened at the first need and kept until `close`.
 */
export class WaitingRows {
  private opened: Promise<{ store: Store; tables: WaitingTables }> | undefined;
  private shared: Store | undefined;
  private known: JournalPlace | undefined;

  /** `where`: the store of the inbox's service and key, worked out at the first need (as a run's would be). */
  constructor(
    private readonly where: () => JournalPlace,
    private readonly reading: ReadingOptions,
    private readonly paths: InboxPaths,
    private readonly say: (line: string) => void,
  ) {}

  /**
   * Keeps the rows in a store open already (serve's for its life, or as its worker's hold writes it), the same one
   * its journal is in: closed by whoever opened it.
   */
  share(store: Store): void {
    if (this.shared === store) return;
    this.shared = store;
    this.opened = undefined;
  }

  private get place(): JournalPlace {
    this.known ??= this.where();
    return this.shared === undefined ? this.known : { ...this.known, open: this.shared };
  }

  /** Whether any row may wait: none where no store was made yet (a look creates none: cron's empty tick leaves no trace). */
  private mayHold(): boolean {
    return this.opened !== undefined || this.shared !== undefined || storeMayHold(this.place);
  }

  private async tables(): Promise<WaitingTables> {
    return (await this.open()).tables;
  }

  private async open(): Promise<{ store: Store; tables: WaitingTables }> {
    this.opened ??= (async () => {
      const store = this.place.open ?? (await openStore(this.place));
      const tables = store.waiting(this.place.service);
      return { store, tables };
    })();
    return this.opened.catch((error: unknown) => {
      this.opened = undefined;
      throw error;
    });
  }

  /**
   * The web page's tables of the same store, service and key (the mappings saved there); none where no store was made
   * yet (nothing was saved then, and a look creates none).
   */
  async web(): Promise<WebTables | undefined> {
    if (!this.mayHold()) return undefined;
    return (await this.open()).store.web(this.place.service);
  }

  /**
   * A run's pending file, kept: its rows wait here now. How many rows. The file they are kept as is named by the
   * file the run read (`source`: its name, size and time), so a run of it again (resumed after a crash between this
   * and moving the file on) puts its rows in place of these instead of beside them.
   */
  async keep(pendingFile: string, source: string): Promise<number> {
    const tables = await this.tables();
    const name = basename(pendingFile);
    const id = keptId(source, name);
    // A chunk a transaction, the event loop let go between: a file of 100,000 rows holds no webhook up.
    await tables.clear(id);
    const read = await readWaitingInChunks(pendingFile, this.reading, async (rows) => {
      await tables.append(id, rows);
      await setImmediate();
    });
    if (read.count > 0)
      await tables.register({ id, name, format: read.format, shape: read.shape, addedAt: new Date().toISOString() });
    return read.count;
  }

  /**
   * Files an older version left in waiting/ (or a person put there): their rows kept in the store, each file then
   * moved to done/; one that cannot be read as rows goes to failed/ with a note.
   */
  async takeOldFiles(runId: string): Promise<void> {
    // A run of kept rows killed midway leaves its folder of rows behind (they are still in the store): it goes.
    for (const entry of readdirSync(this.paths.waiting, { withFileTypes: true }))
      if (entry.isDirectory() && entry.name.startsWith(RUN_FOLDER))
        rmSync(join(this.paths.waiting, entry.name), { recursive: true, force: true });
    for (const { name } of listFiles(this.paths.waiting)) {
      const path = join(this.paths.waiting, name);
      try {
        const rows = await this.keep(path, path);
        const moved = moveInto(path, this.paths.done, name, runId);
        this.say(
          `inbox: waiting/${name}: its ${rows} rows wait in the store now, run as they come due; the file moved to ${relative(this.paths.root, moved)}`,
        );
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        const moved = moveInto(path, this.paths.failed, name, runId);
        writeNote(moved, [
          `${basename(moved)} was in waiting/ but cannot be read as rows: ${error.message}`,
          '',
          'Nothing was sent for it. Fix the file and drop it into incoming/.',
        ]);
        this.say(`inbox: waiting/${name}: cannot be read (${error.message}); moved to failed/`);
      }
    }
  }

  /** The rows whose payer was not checked for `recheckAfterMs` (or never), by file, oldest file first. */
  async due(recheckAfterMs: number): Promise<WaitingRun[]> {
    if (!this.mayHold()) {
      this.sayIfLost();
      return [];
    }
    const cutoff = new Date(Date.now() - recheckAfterMs).toISOString();
    const tables = await this.tables();
    const due: WaitingPlace[] = [];
    // A page of rows at a time, the event loop let go between: 100,000 rows waiting never hold a webhook up.
    for (let after = { fileId: '', seq: 0 }; ; ) {
      const page = await tables.checkedBefore(cutoff, after, 2000);
      due.push(...page);
      if (page.length < 2000) break;
      const last = page.at(-1)!;
      after = { fileId: last.fileId, seq: last.seq };
      await setImmediate();
    }
    return byFile(due);
  }

  /**
   * A slice of the rows whose payer was last checked before `at` (or never), after `after` (by file, then row: the
   * oldest file, whose rows have waited longest, first): at most `limit` rows, by file; `next` is where the slice
   * after starts, none when this was the last.
   */
  async checkedBefore(
    at: string,
    after: { fileId: string; seq: number },
    limit: number,
  ): Promise<{ runs: WaitingRun[]; rows: number; next?: { fileId: string; seq: number } }> {
    if (!this.mayHold()) return { runs: [], rows: 0 };
    const page = await (await this.tables()).checkedBefore(at, after, limit);
    const last = page.at(-1);
    return {
      runs: byFile(page),
      rows: page.length,
      ...(page.length === limit && last !== undefined ? { next: { fileId: last.fileId, seq: last.seq } } : {}),
    };
  }

  /** How many rows wait whose payer was last checked before `at` (or never). */
  async countCheckedBefore(at: string): Promise<number> {
    if (!this.mayHold()) return 0;
    const tables = await this.tables();
    let rows = 0;
    // A page at a time, the event loop let go between, as `due` reads them.
    for (let after = { fileId: '', seq: 0 }; ; ) {
      const page = await tables.checkedBefore(at, after, 2000);
      rows += page.length;
      const last = page.at(-1);
      if (page.length < 2000 || last === undefined) return rows;
      after = { fileId: last.fileId, seq: last.seq };
      await setImmediate();
    }
  }

  /**
   * No store, yet runs of this inbox left rows pending: the state dir was deleted or moved, and the rows that waited in
   * it with it. Said at every look (cron mails it) until a person acts: the files that carry them on are named.
   */
  private sayIfLost(): void {
    const runs = existsSync(this.paths.results) ? readdirSync(this.paths.results, { withFileTypes: true }) : [];
    const pending = runs.filter(
      (run) =>
        run.isDirectory() &&
        readdirSync(join(this.paths.results, run.name)).some((name) => name.startsWith('pending-')),
    );
    if (pending.length === 0) return;
    this.say(
      `inbox: no store in ${this.place.stateDir}, yet ${pending.length} run${pending.length === 1 ? '' : 's'} in results/ left rows waiting: ` +
        'the state dir was deleted or moved, and the rows that waited in it are not known here. Put it back, or drop ' +
        "each file's latest pending-* file from results/ into incoming/ (a run reads what the service stores before " +
        'creating anything, so nothing is made twice)',
    );
  }

  /** Where the rows of these payers (by the journal's key) wait. */
  async ofPayers(keys: readonly string[]): Promise<WaitingPlace[]> {
    if (!this.mayHold()) return [];
    const tables = await this.tables();
    const places: WaitingPlace[] = [];
    // A lookup each: a batch of thousands of approvals lets a webhook be answered every few hundred of them.
    for (let i = 0; i < keys.length; i += 500) {
      if (i > 0) await setImmediate();
      places.push(...(await tables.ofPayers(keys.slice(i, i + 500))));
    }
    return places;
  }

  /** How many payers have rows waiting: counted 10,000 rows at a time, the event loop let go between. */
  async payerCount(): Promise<number> {
    if (!this.mayHold()) return 0;
    const tables = await this.tables();
    let payers = 0;
    for (let after: string | undefined = ''; after !== undefined; ) {
      const page = await tables.payerCount(after, 10_000);
      payers += page.payers;
      after = page.last;
      await setImmediate();
    }
    return payers;
  }

  /**
   * The rows as a file of their own in a folder of their own under waiting/ (hidden: a look at the folder lists no
   * file of a run under way), with the kept file they came from; none when they went meanwhile.
   */
  async prepare(run: WaitingRun): Promise<{ file: WaitingFile; path: string; dir: string } | undefined> {
    const tables = await this.tables();
    const file = await tables.file(run.fileId);
    const rows = await tables.rows(run.fileId, run.seqs);
    if (file === undefined || rows.length === 0) return undefined;
    const dir = mkdtempSync(join(this.paths.waiting, RUN_FOLDER));
    try {
      return { file, path: await writeWaiting(dir, file, rows), dir };
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The rows run are gone, the rows the run left pending take their place. */
  async replace(file: WaitingFile, run: readonly number[], pendingFile: string | undefined): Promise<number> {
    const tables = await this.tables();
    // An event's few rows (a run never leaves more pending than it ran): one transaction, at once.
    if (run.length <= CHUNK_ROWS) {
      const read = pendingFile === undefined ? undefined : await readWaiting(pendingFile, this.reading);
      await tables.replace(file, run, read?.rows ?? []);
      return read?.rows.length ?? 0;
    }
    // A recheck of a whole file: what the run left pending is added first, a chunk a transaction, then the rows run
    // go. A crash between leaves rows kept twice, which a later run settles (the journal knows what was done); none
    // is lost, and no transaction holds the process for long.
    let left = 0;
    if (pendingFile !== undefined)
      left = (
        await readWaitingInChunks(pendingFile, this.reading, async (rows) => {
          await tables.append(file.id, rows);
          await setImmediate();
        })
      ).count;
    for (let i = 0; i < run.length; i += CHUNK_ROWS) {
      await tables.replace(file, run.slice(i, i + CHUNK_ROWS), []);
      await setImmediate();
    }
    return left;
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (opened === undefined || this.shared !== undefined) return;
    await (await opened.catch(() => undefined))?.store.close();
  }
}

/**
 * The id rows of a file are kept by: the time of the file they came from (so that ids sort oldest first) and a digest
 * of its path, size and time, then the name they are kept under.
 */
function keptId(source: string, name: string): string {
  const { size, mtimeMs } = statSync(source);
  const stamp = new Date(mtimeMs)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const digest = createHash('sha256')
    .update(`${basename(source)}\0${size}\0${mtimeMs}`)
    .digest('hex')
    .slice(0, 12);
  return `${stamp}-${digest}/${name}`;
}

function byFile(places: readonly WaitingPlace[]): WaitingRun[] {
  const runs = new Map<string, number[]>();
  for (const { fileId, seq } of places) {
    const seqs = runs.get(fileId);
    if (seqs === undefined) runs.set(fileId, [seq]);
    else seqs.push(seq);
  }
  return [...runs].map(([fileId, seqs]) => ({ fileId, seqs }));
}

/**
 * Settles a run of kept rows: the rows it left pending wait on in their place, rows that now need a person (a KYC
 * rejected, a bank account refused) land in failed/ with a note, and the rest are done. A run that did not get to
 * the end leaves the rows as they were: the next tick tries again, and the journal makes that safe.
 */
export async function settleWaiting(
  paths: InboxPaths,
  waiting: WaitingRows,
  file: WaitingFile,
  seqs: readonly number[],
  ran: InboxRun,
): Promise<FileOutcome> {
  const { runId, summary } = ran;
  const rel = (p: string) => relative(paths.root, p);
  const base = { file: file.name, exitCode: summary.exitCode, results: rel(summary.outputs.dir), summary };
  if (summary.aborted)
    return {
      ...base,
      folder: 'waiting',
      path: base.results,
      reason: `the run stopped (${summary.aborted.reason}); the next inbox run tries it again`,
      stop: true,
    };
  const r = summary.rows;
  // The rows run leave the store first: a crash before the fix file is copied loses no row (the run's results
  // folder holds it), and one after cannot copy it twice.
  const pendingFile = summary.outputs.pending[0];
  const left = await waiting.replace(file, seqs, pendingFile);
  const failedFile = summary.outputs.failed[0];
  const fix = failedFile ? copyInto(failedFile, paths.failed, basename(failedFile), runId) : undefined;
  if (fix)
    writeNote(fix, [
      `${basename(fix)}: ${r.invalid + r.failed} rows of ${file.name} (rows waiting) need a person now.`,
      '',
      `See ${rel(summary.outputs.report)} for why. Fix the rows and drop this file into incoming/.`,
    ]);
  const reasons = [
    r.ok > 0 ? `${r.ok} of ${r.total} rows done` : '',
    r.waiting + r.skipped > 0 ? `${r.waiting + r.skipped} still waiting` : '',
    fix ? `${r.invalid + r.failed} to fix in ${rel(fix)}` : '',
  ].filter(Boolean);
  if (left > 0 && pendingFile !== undefined)
    return { ...base, folder: 'waiting', path: rel(pendingFile), reason: reasons.join('; '), stop: false };
  return { ...base, folder: 'done', path: base.results, reason: reasons.join('; '), stop: false };
}
