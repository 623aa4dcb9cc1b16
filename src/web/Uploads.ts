import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { InboxRunInput } from '../inbox/Inbox.js';
import type { JournalTables, WebTables } from '../store/Store.js';
import { placesOf, type RunContext } from '../pipeline/RunSession.js';
import type { DateFormat } from '../core/types.js';
import { type FileFacts, tooManyRows } from './fileFacts.js';
import { sentName, type UploadCheck, unusableCheck } from './checkUpload.js';
import { datesMapped, onlyReading, readings, type UploadDates } from './dateChoice.js';
import type { Mappings } from '../inbox/Mappings.js';
import { checkEnv, UploadReader } from './UploadReader.js';
import { type NewAccounts, newAccountsOf } from './bankAccounts.js';
import { contentHash, fileDigest } from './contentHash.js';
import type { Fix, Person, UploadTable } from './uploadTable.js';

/** The rows a page shows of every upload, whatever the check found: samples of each column for the mapping. */
const PAGE_ROWS = 50;

/** The file types the CLI reads, as an upload may be named. */
const EXTENSIONS = new Set(['.csv', '.txt', '.tsv', '.xlsx', '.jsonl', '.ndjson']);

export interface Upload {
  id: string;
  /** The file's name as uploaded, made safe for a file system. */
  name: string;
  size: number;
  at: string;
  check?: UploadCheck;
  /** What the tool found in the file as uploaded: its sheet, header row, encoding, separator. */
  found?: FileFacts;
  /** Where it was put in the inbox, once sent. */
  sentAs?: string;
  /** The person's column names' fields (`--map`'s JSON), and whether they came from the mapping saved for this header. */
  mapping?: Record<string, string>;
  mappingSaved?: boolean;
  /** How its dates not written YYYY-MM-DD are read (`--date-format`), once someone said: none until then. */
  dates?: UploadDates;
  /** Lines the person left out: not sent. */
  leftOut?: number[];
  /** The file written from the upload with the person's edits, that is sent instead of it (a workbook, or UTF-8 CSV). */
  sentFile?: string;
  /** Who uploaded it (none in an upload kept from before uploads were signed). */
  by?: Person;
  /** Who changed its mapping or date format, and when: each change. */
  mapped?: Array<{ by: Person; at: string }>;
  /** The SHA-256 of the file as uploaded: with the choices made on it, what an approval covers. */
  digest?: string;
  /** A second person's approval, with the hash of the content it covers (`hash()`): any change since voids it. */
  approval?: Approval;
  /**
   * The rows that give a payer the journal knows with a bank account another one (the first of them), and how many, as
   * the last check and the journal then found them; none only where the check could not use the file.
   */
  newAccounts?: NewAccounts;
  /** Who sent it. */
  sentBy?: Person;
}

/** An approval: who gave it, when, and the hash of the upload's content it covers. */
export interface Approval {
  by: Person;
  at: string;
  hash: string;
}

/** How the run options and context a check needs are passed along. */
export interface CheckWith {
  input: InboxRunInput;
  context: RunContext;
}

/**
 * Uploaded files, kept in the store (what was found and done, the changes made, the file itself until it is sent as
 * it came), so that any serve over the store goes on with an upload another one took. The file is worked on in a
 * folder of this serve's (`.web/uploads/<id>/`, mode 0600: it holds the payers' personal data), written from the store
 * when missing. Sent, it is copied into incoming/, where the inbox takes it as any dropped file.
 */
export class Uploads {
  private readonly busy = new Map<string, Promise<unknown>>();

  constructor(
    private readonly root: string,
    private readonly incoming: string,
    /** Mappings saved by header, in the store. */
    readonly mappings: Mappings,
    private readonly tables: WebTables,
    /** Where every read of an uploaded file is made: never in serve's own event loop. */
    private readonly reader = new UploadReader(),
    /**
     * The journal's payers, which tell a row's bank account new for a payer that has one; without it (a test of the
     * checks alone) no row is found so.
     */
    private readonly journal?: Pick<JournalTables, 'payers'>,
  ) {}

  /**
   * `work` on an upload once the work before it on that upload is done: a change reads the upload, writes its file and
   * checks it again, and Send must see the last of them.
   */
  serial<T>(id: string, work: () => Promise<T>): Promise<T> {
    const done = (this.busy.get(id) ?? Promise.resolve()).then(work, work);
    const settled = done.catch(() => undefined);
    this.busy.set(id, settled);
    void settled.then(() => this.busy.get(id) === settled && this.busy.delete(id));
    return done;
  }

  /** A safe name for an uploaded file, or why it cannot be taken. */
  static nameOf(given: string): { name: string } | { problem: string } {
    // No leading dot (the inbox skips hidden files) and a length any file system takes.
    const safe = basename(given.replace(/\\/g, '/'))
      .replace(/[^\w.\- ()]/g, '_')
      .replace(/^\.+/, '');
    const ext = extname(safe).toLowerCase();
    const name = safe.length > 120 ? `${safe.slice(0, 120 - ext.length)}${ext}` : safe;
    if (!EXTENSIONS.has(ext))
      return { problem: `${name || 'the file'}: the tool reads .csv, .txt, .tsv, .xlsx, .jsonl and .ndjson files` };
    return { name };
  }

  /** A new upload's folder and the path its file goes to. */
  create(name: string): { id: string; path: string } {
    const id = randomBytes(9).toString('base64url');
    const dir = join(this.root, id);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return { id, path: join(dir, name) };
  }

  /**
   * Records a file written whole, checks it as `validate` does, and returns what was found. The mapping saved for its
   * columns, if any, is applied first, with its date format; without one, the date format its dates can only be read
   * in, if they can be read only one way (in its first rows; or, once checked, in the rows refused).
   */
  async accept(
    id: string,
    path: string,
    size: number,
    input: InboxRunInput,
    context: RunContext,
    by?: Person,
  ): Promise<Upload> {
    chmodSync(path, 0o600);
    // Its header, for the mapping saved for it, and its first rows' dates.
    const read = await this.reader.read(path, { first: PAGE_ROWS, lines: [] }, true);
    const found = 'value' in read ? (read.value.facts ?? {}) : {};
    const upload: Upload = {
      ...{ id, name: basename(path), size, at: new Date().toISOString(), found },
      digest: await fileDigest(path),
      ...(by === undefined ? {} : { by }),
    };
    await this.tables.putUpload({ id, at: upload.at, upload: JSON.stringify(upload), fixes: '[]' }, readFileSync(path));
    // A file its reading could not get through, or one of more rows than the page checks, is not checked: the check
    // would read it the same way, or outlast its time.
    if ('failed' in read || found.tooManyRows) {
      const why = 'failed' in read ? this.reader.why(upload.name, read.failed) : tooManyRows(upload.name);
      upload.check = unusableCheck(upload.name, why);
      await this.save(upload);
      return upload;
    }
    const table = read.value.table;
    const saved = table === undefined ? undefined : await this.mappings.get(table.header);
    if (saved !== undefined) Object.assign(upload, { mapping: saved.columns, mappingSaved: true });
    if (saved?.dateFormat !== undefined) upload.dates = { format: saved.dateFormat, by: 'saved' };
    const check = { input, context };
    const first = upload.dates === undefined && table !== undefined ? readings(table, upload.mapping ?? {}) : undefined;
    if (first?.length === 1) upload.dates = { format: first[0]!, by: 'guess' };
    const checked = await this.recheck(upload, check);
    // First rows whose dates read more ways than one, or none: the rows refused may tell (read only then).
    if (checked.dates !== undefined || first === undefined || (checked.check?.problems ?? []).length === 0)
      return checked;
    const rows = await this.table(checked);
    const later = rows && onlyReading(rows, checked.mapping ?? {});
    return later === undefined ? checked : this.recheck({ ...checked, dates: { format: later, by: 'guess' } }, check);
  }

  async get(id: string): Promise<Upload | undefined> {
    if (!/^[\w-]{12}$/.test(id)) return undefined;
    const stored = await this.tables.upload(id);
    if (stored === undefined) return undefined;
    const upload = JSON.parse(stored.upload) as Upload;
    // Claimed by a serve, it is sent (or being sent) though its JSON may not say so yet, or was written over by a
    // serve that lost the claim and saved what it saw before.
    if (stored.sentAs !== undefined && upload.sentAs === undefined) upload.sentAs = stored.sentAs;
    return upload;
  }

  /**
   * The upload's rows as the tool reads them, those its page shows (the `first`, and those refused, changed, left out
   * or giving a known payer a new bank account), while its file is kept (until sent as it stands).
   */
  async table(upload: Upload, first = PAGE_ROWS): Promise<UploadTable | undefined> {
    const path = await this.file(upload);
    if (path === undefined) return undefined;
    const refused = (upload.check?.problems ?? []).map((problem) => Number(problem.line));
    const newAccounts = (upload.newAccounts?.rows ?? []).filter((r) => r.sheet === undefined).map((r) => r.line);
    const lines = [
      ...[...refused, ...(upload.leftOut ?? []), ...newAccounts],
      ...(await this.fixes(upload)).map((fix) => fix.line),
    ];
    const read = await this.reader.read(path, { first, lines });
    return 'value' in read ? read.value.table : undefined;
  }

  /**
   * The file as uploaded, in this serve's folder: written there from the store if another serve took it (or this
   * one's folder was cleared); none once it was sent as it came.
   */
  private async file(upload: Upload): Promise<string | undefined> {
    const path = join(this.root, upload.id, upload.name);
    if (existsSync(path)) return path;
    const content = await this.tables.uploadContent(upload.id);
    if (content === undefined) return undefined;
    mkdirSync(join(this.root, upload.id), { recursive: true, mode: 0o700 });
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  }

  /**
   * A mapping chosen on the page, with the date format chosen (null: YYYY-MM-DD only; undefined: none chosen, and the
   * one applied already, or the only one the dates read in with this mapping, stays): saved for the next file with
   * these columns, and the upload checked again with it. A guess is saved only once the person has chosen it.
   */
  async map(
    upload: Upload,
    table: UploadTable,
    chosen: { mapping: Record<string, string>; dateFormat: DateFormat | null | undefined },
    check: CheckWith,
    by?: Person,
  ): Promise<Upload> {
    const { mapping } = chosen;
    const dates = datesMapped(upload.dates, table, chosen);
    const said = dates?.by !== 'guess' && dates?.format !== undefined ? { dateFormat: dates.format } : {};
    await this.mappings.save(table.header, { columns: mapping, ...said });
    // Who changed what is sent: a mapping posted as it stood changes nothing, and is no one's change.
    const changed = !sameMapping(upload.mapping ?? {}, mapping) || upload.dates?.format !== dates?.format;
    const mapped: Upload = {
      ...upload,
      mapping,
      mappingSaved: false,
      ...(changed && by !== undefined
        ? { mapped: [...(upload.mapped ?? []), { by, at: new Date().toISOString() }] }
        : {}),
    };
    delete mapped.dates;
    return this.recheck(dates === undefined ? mapped : { ...mapped, dates }, check);
  }

  /**
   * Cells changed and rows left out or put back: each change kept in the upload's audit (in the store:
   * what was sent must be traceable to what was uploaded), then the upload checked again.
   */
  async fix(upload: Upload, fixes: Fix[], out: Map<number, boolean>, check: CheckWith, by?: Person): Promise<Upload> {
    const audit = await this.fixes(upload);
    const at = new Date().toISOString();
    const leftOut = new Set(upload.leftOut ?? []);
    for (const [line, left] of out) {
      if (left === leftOut.has(line)) continue;
      audit.push({ line, column: '(row)', value: left ? 'left out' : 'put back', at, ...(by ? { by } : {}) });
      if (left) leftOut.add(line);
      else leftOut.delete(line);
    }
    audit.push(...fixes);
    const changed = { ...upload, leftOut: [...leftOut].sort((a, b) => a - b) };
    await this.save(changed, audit);
    return this.recheck(changed, check);
  }

  /** Every change the person made, in order (the row's own entries say `left out` / `put back`). */
  async fixes(upload: Upload): Promise<Fix[]> {
    const stored = await this.tables.upload(upload.id);
    return stored === undefined ? [] : (JSON.parse(stored.fixes) as Fix[]);
  }

  /**
   * Whether the upload is sent as a file of its own making (mapped, its dates read in a date format, fixed, or rows left
   * out) rather than as uploaded.
   */
  async edited(upload: Upload): Promise<boolean> {
    return (
      Object.keys(upload.mapping ?? {}).length > 0 ||
      upload.dates?.format !== undefined ||
      (upload.leftOut ?? []).length > 0 ||
      (await this.fixes(upload)).length > 0
    );
  }

  /**
   * Puts the file into incoming/ (copied, then renamed: the inbox never sees half of it). Once only: `sentHere` says
   * whether this call did (the upload may have been sent before it, or by another serve meanwhile). The file of the
   * page's making is written again if this serve has none (another one made it).
   */
  async send(
    upload: Upload,
    check: CheckWith,
    by?: Person,
    /** Told the name it goes in as once this serve has the claim, before the file goes: the audit trail's line. */
    claimed: (sentAs: string) => Promise<void> = async () => undefined,
  ): Promise<{ upload: Upload; sentHere: boolean }> {
    const notHere = (now: Upload) => ({ upload: now, sentHere: false });
    if (upload.sentAs !== undefined) return notHere(upload);
    const dir = join(this.root, upload.id);
    const edited = await this.edited(upload);
    const file = edited ? sentName(upload.name) : upload.name;
    if (edited && !existsSync(join(dir, 'sent', file))) await this.recheck(upload, check);
    else await this.file(upload);
    // The check made again may have found the file unusable (its process stopped), or written nothing to send.
    if (upload.check?.unusable !== undefined || (edited && !existsSync(join(dir, 'sent', file))))
      return notHere(upload);
    let target = join(this.incoming, file);
    if (existsSync(target)) {
      const ext = extname(file);
      target = join(this.incoming, `${file.slice(0, file.length - ext.length)}-${upload.id}${ext}`);
    }
    // One serve sends it, whichever of those over the same store is asked first.
    if (!(await this.tables.claimUpload(upload.id, basename(target))))
      return notHere((await this.get(upload.id)) ?? upload);
    try {
      await claimed(basename(target));
      const temp = join(this.incoming, `.${upload.id}.part`);
      copyFileSync(edited ? join(dir, 'sent', file) : join(dir, upload.name), temp);
      renameSync(temp, target);
    } catch (error) {
      await this.tables.claimUpload(upload.id, undefined);
      throw error;
    }
    const sent = { ...upload, sentAs: basename(target), ...(by === undefined ? {} : { sentBy: by }) };
    // The inbox has the file now: its copies here go (personal data kept once). A file of the page's making leaves the
    // upload as it came and the changes made to it, for whoever audits what was sent.
    await this.save(sent, undefined, edited ? undefined : null);
    rmSync(join(dir, 'check'), { recursive: true, force: true });
    rmSync(join(dir, 'sent'), { recursive: true, force: true });
    if (!edited) rmSync(join(dir, upload.name), { force: true });
    return { upload: sent, sentHere: true };
  }

  /** The upload checked as it would be sent: as uploaded, or the file written from it with the person's edits. */
  private async recheck(upload: Upload, { input, context }: CheckWith): Promise<Upload> {
    const dir = join(this.root, upload.id);
    const original = (await this.file(upload)) ?? join(dir, upload.name);
    rmSync(join(dir, 'check'), { recursive: true, force: true });
    rmSync(join(dir, 'sent'), { recursive: true, force: true });
    const format = upload.dates?.format;
    const edits = (await this.edited(upload))
      ? {
          ...{ mapping: upload.mapping ?? {}, fixes: await this.fixes(upload), leftOut: upload.leftOut ?? [] },
          ...(format === undefined ? {} : { dateFormat: format }),
        }
      : undefined;
    const { cwd, env, home } = placesOf(context);
    // Checked as the inbox will run it (with its options), the dates as the page reads them.
    const checking = format === undefined ? input : { ...input, dateFormat: format };
    const checked = await this.reader.check({
      ...{ original, name: upload.name, dir, input: checking, places: { cwd, env: checkEnv(env), home } },
      ...(upload.found?.sheet === undefined ? {} : { sheet: upload.found.sheet }),
      ...(edits === undefined ? {} : { edits }),
    });
    delete upload.sentFile;
    delete upload.newAccounts;
    if ('failed' in checked) upload.check = unusableCheck(upload.name, this.reader.why(upload.name, checked.failed));
    else {
      upload.check = checked.value.check;
      if (checked.value.sentFile !== undefined) upload.sentFile = checked.value.sentFile;
      const found = await newAccountsOf(join(dir, 'check'), this.journal);
      if (found !== undefined) upload.newAccounts = found;
    }
    await this.save(upload);
    return upload;
  }

  /** The hash of what would be sent (`contentHash`): an approval holds while it is the one it was given for. */
  async hash(upload: Upload, fixes?: readonly Fix[]): Promise<string> {
    let file = upload.digest;
    if (file === undefined) {
      const path = await this.file(upload);
      file = path === undefined ? '' : await fileDigest(path);
    }
    return contentHash({
      ...{ file, name: upload.name, sheet: upload.found?.sheet, mapping: upload.mapping ?? {} },
      ...{ dateFormat: upload.dates?.format, leftOut: upload.leftOut ?? [] },
      fixes: fixes ?? (await this.fixes(upload)),
    });
  }

  /** An approval given for the content of this hash. */
  async approve(upload: Upload, by: Person, hash: string): Promise<Upload> {
    const approved = { ...upload, approval: { by, at: new Date().toISOString(), hash } };
    await this.save(approved);
    return approved;
  }

  /**
   * The upload as it stands before it is sent: which of its rows give a known payer a new bank account, asked of the
   * journal again (a run may have given a payer an account since the check), from this serve's check of it, made
   * again when there is none here (another serve checked it).
   */
  async current(upload: Upload, check: CheckWith): Promise<Upload> {
    if (upload.check?.unusable !== undefined) return upload;
    const found = await newAccountsOf(join(this.root, upload.id, 'check'), this.journal);
    if (found === undefined) return this.recheck(upload, check);
    if (upload.newAccounts !== undefined && JSON.stringify(found) === JSON.stringify(upload.newAccounts)) return upload;
    const now = { ...upload, newAccounts: found };
    await this.save(now);
    return now;
  }

  /** An upload given up (refused, or its file did not arrive whole): nothing of it is kept. */
  async discard(id: string): Promise<void> {
    if (!/^[\w-]{12}$/.test(id)) return;
    rmSync(join(this.root, id), { recursive: true, force: true });
    await this.tables.deleteUploads({ ids: [id] });
  }

  /**
   * Uploads older than `maxAgeMs` removed, sent or not, from the store and from this serve's folder (and any folder
   * of an upload the store no longer has): what they hold is personal data.
   */
  async prune(maxAgeMs: number, now = Date.now()): Promise<void> {
    await this.tables.deleteUploads({ before: new Date(now - maxAgeMs).toISOString() });
    if (!existsSync(this.root)) return;
    for (const id of readdirSync(this.root)) {
      const old = now - statSync(join(this.root, id)).mtimeMs > maxAgeMs;
      if (old || (await this.tables.upload(id)) === undefined)
        rmSync(join(this.root, id), { recursive: true, force: true });
    }
  }

  /** What was found and done; the changes made, when they changed; the file (null: it goes, sent as it came). */
  private async save(upload: Upload, fixes?: Fix[], content?: null): Promise<void> {
    const audit = fixes ?? (await this.fixes(upload));
    await this.tables.putUpload(
      { id: upload.id, at: upload.at, upload: JSON.stringify(upload), fixes: JSON.stringify(audit) },
      content,
    );
  }
}

function sameMapping(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
