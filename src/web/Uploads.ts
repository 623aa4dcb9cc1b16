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
import type { RunContext } from '../pipeline/RunSession.js';
import { type FileFacts, fileFacts } from './fileFacts.js';
import { checkFile, type UploadCheck } from './checkUpload.js';
import type { Mappings } from './Mappings.js';
import { writeSentWorkbook } from './sentWorkbook.js';
import { type Edits, type Fix, readTable, type UploadTable, writeSentFile } from './uploadTable.js';

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
  /** Lines the person left out: not sent. */
  leftOut?: number[];
  /** The file written from the upload with the person's edits, that is sent instead of it (a workbook, or UTF-8 CSV). */
  sentFile?: string;
}

/** How the run options and context a check needs are passed along. */
export interface CheckWith {
  input: InboxRunInput;
  context: RunContext;
}

/**
 * Uploaded files, kept under the inbox (`.web/uploads/<id>/`, mode 0600: they hold the payers' personal data) until
 * a person sends one: it is then copied into incoming/, where the inbox takes it as any dropped file.
 */
export class Uploads {
  private readonly busy = new Map<string, Promise<unknown>>();

  constructor(
    private readonly root: string,
    private readonly incoming: string,
    /** Mappings saved by header, in the store. */
    readonly mappings: Mappings,
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
   * header, if any, is applied first.
   */
  async accept(id: string, path: string, size: number, input: InboxRunInput, context: RunContext): Promise<Upload> {
    chmodSync(path, 0o600);
    const upload: Upload = {
      id,
      name: basename(path),
      size,
      at: new Date().toISOString(),
      found: await fileFacts(path),
    };
    const table = await readTable(path);
    const saved = table === undefined ? undefined : await this.mappings.get(table.header);
    if (saved !== undefined) Object.assign(upload, { mapping: saved, mappingSaved: true });
    return this.recheck(upload, { input, context });
  }

  get(id: string): Upload | undefined {
    if (!/^[\w-]{12}$/.test(id)) return undefined;
    const meta = join(this.root, id, 'upload.json');
    if (!existsSync(meta)) return undefined;
    return JSON.parse(readFileSync(meta, 'utf8')) as Upload;
  }

  /** The upload's rows as the tool reads them, while its file is kept (until sent as it stands). */
  table(upload: Upload): Promise<UploadTable | undefined> {
    const path = join(this.root, upload.id, upload.name);
    return existsSync(path) ? readTable(path) : Promise.resolve(undefined);
  }

  /** A mapping chosen on the page: saved for the next file with this header, and the upload checked again with it. */
  async map(upload: Upload, header: string[], mapping: Record<string, string>, check: CheckWith): Promise<Upload> {
    await this.mappings.save(header, mapping);
    return this.recheck({ ...upload, mapping, mappingSaved: false }, check);
  }

  /**
   * Cells changed and rows left out or put back: each change kept in the upload's audit (`fixes.json`, mode 0600:
   * what was sent must be traceable to what was uploaded), then the upload checked again.
   */
  async fix(upload: Upload, fixes: Fix[], out: Map<number, boolean>, check: CheckWith): Promise<Upload> {
    const audit = this.fixes(upload);
    const at = new Date().toISOString();
    const leftOut = new Set(upload.leftOut ?? []);
    for (const [line, left] of out) {
      if (left === leftOut.has(line)) continue;
      audit.push({ line, column: '(row)', value: left ? 'left out' : 'put back', at });
      if (left) leftOut.add(line);
      else leftOut.delete(line);
    }
    audit.push(...fixes);
    writeFileSync(join(this.root, upload.id, 'fixes.json'), JSON.stringify(audit), { mode: 0o600 });
    return this.recheck({ ...upload, leftOut: [...leftOut].sort((a, b) => a - b) }, check);
  }

  /** Every change the person made, in order (the row's own entries say `left out` / `put back`). */
  fixes(upload: Upload): Fix[] {
    const path = join(this.root, upload.id, 'fixes.json');
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Fix[]) : [];
  }

  /** Whether the upload is sent as a file of its own making (mapped, fixed or rows left out) rather than as uploaded. */
  edited(upload: Upload): boolean {
    return (
      Object.keys(upload.mapping ?? {}).length > 0 || (upload.leftOut ?? []).length > 0 || this.fixes(upload).length > 0
    );
  }

  /** Puts the file into incoming/ (copied, then renamed: the inbox never sees half of it). Once only. */
  send(upload: Upload): Upload {
    if (upload.sentAs !== undefined) return upload;
    const dir = join(this.root, upload.id);
    const edited = this.edited(upload);
    const file = edited ? sentName(upload.name) : upload.name;
    let target = join(this.incoming, file);
    if (existsSync(target)) {
      const ext = extname(file);
      target = join(this.incoming, `${file.slice(0, file.length - ext.length)}-${upload.id}${ext}`);
    }
    const temp = join(this.incoming, `.${upload.id}.part`);
    copyFileSync(edited ? join(dir, 'sent', file) : join(dir, upload.name), temp);
    renameSync(temp, target);
    const sent = { ...upload, sentAs: basename(target) };
    this.save(sent);
    // The inbox has the file now: its copies here go (personal data kept once). A file of the page's making leaves the
    // upload as it came and the changes made to it, for whoever audits what was sent.
    rmSync(join(dir, 'check'), { recursive: true, force: true });
    rmSync(join(dir, 'sent'), { recursive: true, force: true });
    if (!edited) rmSync(join(dir, upload.name), { force: true });
    return sent;
  }

  /** The upload checked as it would be sent: as uploaded, or the file written from it with the person's edits. */
  private async recheck(upload: Upload, { input, context }: CheckWith): Promise<Upload> {
    const dir = join(this.root, upload.id);
    const original = join(dir, upload.name);
    rmSync(join(dir, 'check'), { recursive: true, force: true });
    const table = this.edited(upload) ? await readTable(original) : undefined;
    delete upload.sentFile;
    if (table === undefined) upload.check = await checkFile(original, join(dir, 'check'), input, context);
    else {
      const edits: Edits = { mapping: upload.mapping ?? {}, fixes: this.fixes(upload), leftOut: upload.leftOut ?? [] };
      mkdirSync(join(dir, 'sent'), { recursive: true, mode: 0o700 });
      const path = join(dir, 'sent', sentName(upload.name));
      const workbook = extname(upload.name).toLowerCase() === '.xlsx';
      const lines = workbook
        ? await writeSentWorkbook(original, path, upload.found?.sheet, table, edits)
        : writeSentFile(path, table, edits);
      const check = await checkFile(path, join(dir, 'check'), input, context, lines);
      // The format the person knows is their file's; what is sent is said beside it.
      upload.check = { ...check, format: extname(upload.name).slice(1).toLowerCase() };
      if (table.bankSheet !== undefined && !workbook)
        upload.check.warnings.push(
          `the sheet "${table.bankSheet}" is not sent with the mapped or fixed rows (a CSV holds one sheet): upload it as a file of its own`,
        );
      upload.sentFile = sentName(upload.name);
    }
    this.save(upload);
    return upload;
  }

  /** An upload given up (refused, or its file did not arrive whole): nothing of it is kept. */
  discard(id: string): void {
    if (/^[\w-]{12}$/.test(id)) rmSync(join(this.root, id), { recursive: true, force: true });
  }

  /** Uploads older than `maxAgeMs` removed, sent or not: what they hold is personal data. */
  prune(maxAgeMs: number, now = Date.now()): void {
    if (!existsSync(this.root)) return;
    for (const id of readdirSync(this.root)) {
      const at = statSync(join(this.root, id)).mtimeMs;
      if (now - at > maxAgeMs) rmSync(join(this.root, id), { recursive: true, force: true });
    }
  }

  private save(upload: Upload): void {
    writeFileSync(join(this.root, upload.id, 'upload.json'), JSON.stringify(upload), { mode: 0o600 });
  }
}

/**
 * The name of the file sent for an edited upload: a workbook's own (it is sent as a workbook), any other's as UTF-8 CSV
 * (`monday.tsv` -> `monday.csv`).
 */
export function sentName(name: string): string {
  if (extname(name).toLowerCase() === '.xlsx') return name;
  return `${name.slice(0, name.length - extname(name).length)}.csv`;
}
