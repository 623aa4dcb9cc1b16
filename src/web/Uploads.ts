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
import { parse } from 'csv-parse/sync';
import { PayerOnboardError } from '../core/errors.js';
import type { InboxRunInput } from '../inbox/Inbox.js';
import { run } from '../pipeline/run.js';
import type { RunContext } from '../pipeline/RunSession.js';
import { readStatusInputs } from '../status/statusInputs.js';

/** The file types the CLI reads, as an upload may be named. */
const EXTENSIONS = new Set(['.csv', '.txt', '.tsv', '.xlsx', '.jsonl', '.ndjson']);

/** What the tool found in an uploaded file, as the upload page shows it. */
interface UploadCheck {
  format: string;
  rows: number;
  ok: number;
  invalid: number;
  /** Distinct payers a run of the file sends, and how many of them it gives a bank account it takes. */
  payers: number;
  withBank: number;
  warnings: string[];
  /** Rows a run refuses: line, id and the tool's message (no cell value: results.csv holds none). */
  problems: Array<{ line: string; clientUserId: string; error: string }>;
  /** Why the file cannot be used at all (no header, an unsupported type), when it cannot. */
  unusable?: string;
}

export interface Upload {
  id: string;
  /** The file's name as uploaded, made safe for a file system. */
  name: string;
  size: number;
  at: string;
  check?: UploadCheck;
  /** Where it was put in the inbox, once sent. */
  sentAs?: string;
}

/**
 * Uploaded files, kept under the inbox (`.web/uploads/<id>/`, mode 0600: they hold the payers' personal data) until
 * a person sends one: it is then copied into incoming/, where the inbox takes it as any dropped file.
 */
export class Uploads {
  constructor(
    private readonly root: string,
    private readonly incoming: string,
  ) {}

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

  /** Records a file written whole, checks it as `validate` does, and returns what was found. */
  async accept(id: string, path: string, size: number, input: InboxRunInput, context: RunContext): Promise<Upload> {
    chmodSync(path, 0o600);
    const upload: Upload = { id, name: basename(path), size, at: new Date().toISOString() };
    upload.check = await checkFile(path, join(this.root, id, 'check'), input, context);
    this.save(upload);
    return upload;
  }

  get(id: string): Upload | undefined {
    if (!/^[\w-]{12}$/.test(id)) return undefined;
    const meta = join(this.root, id, 'upload.json');
    if (!existsSync(meta)) return undefined;
    return JSON.parse(readFileSync(meta, 'utf8')) as Upload;
  }

  /** Puts the file into incoming/ (copied, then renamed: the inbox never sees half of it). Once only. */
  send(upload: Upload): Upload {
    if (upload.sentAs !== undefined) return upload;
    let target = join(this.incoming, upload.name);
    if (existsSync(target)) {
      const ext = extname(upload.name);
      target = join(this.incoming, `${upload.name.slice(0, upload.name.length - ext.length)}-${upload.id}${ext}`);
    }
    const temp = join(this.incoming, `.${upload.id}.part`);
    const dir = join(this.root, upload.id);
    copyFileSync(join(dir, upload.name), temp);
    renameSync(temp, target);
    const sent = { ...upload, sentAs: basename(target) };
    this.save(sent);
    // The inbox has the file now: the upload's copy and its check's failed rows go (personal data kept once).
    rmSync(join(dir, upload.name), { force: true });
    rmSync(join(dir, 'check'), { recursive: true, force: true });
    return sent;
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

/** `validate` of the file into `out`, and its payers counted: what a run of it would find, with nothing sent. */
async function checkFile(path: string, out: string, input: InboxRunInput, context: RunContext): Promise<UploadCheck> {
  const empty = { format: extname(path).slice(1), rows: 0, ok: 0, invalid: 0, payers: 0, withBank: 0, warnings: [] };
  try {
    // Nothing of the check goes to serve's log: its lines (columns not understood, say) can quote the file's cells.
    const quiet: RunContext = { ...context, stderr: undefined };
    const summary = await run({ ...input, inputs: [path], out, command: 'validate', progress: false }, quiet);
    const results = parse(readFileSync(summary.outputs.results), { columns: true }) as Array<Record<string, string>>;
    const problems = results
      .filter((r) => r.outcome === 'invalid')
      .slice(0, 200)
      .map((r) => ({ line: r.line ?? '', clientUserId: r.clientUserId ?? '', error: r.error ?? '' }));
    const { targets } = await readStatusInputs([path], { reading: {} }).catch(() => ({ targets: [] }));
    return {
      format: summary.inputs[0]?.format ?? empty.format,
      rows: summary.rows.total,
      ok: summary.rows.ok,
      invalid: summary.rows.invalid,
      // Payers with a row a run takes, and of them those whose bank row it takes too.
      payers: targets.filter((t) => t.invalid.payer !== true).length,
      withBank: targets.filter((t) => t.hasBank && t.invalid.payer !== true && t.invalid.bank !== true).length,
      warnings: summary.warnings,
      problems,
    };
  } catch (error) {
    if (!(error instanceof PayerOnboardError)) throw error;
    return { ...empty, problems: [], unusable: error.message };
  }
}
