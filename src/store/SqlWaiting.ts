import type { Executor, Statement } from './SqlJournal.js';
import type { WaitingFile, WaitingPlace, WaitingRow, WaitingTables } from './Store.js';

type Row = Record<string, unknown>;

/**
 * Rows a statement names at most: numbers are padded to this many (one SQL text, prepared once), and rows are
 * inserted this many a statement (a few hundred parameters, far under either backend's limit).
 */
const CHUNK = 100;

const PLACE = 'w.file_id, w.seq, w.payer_key, w.client_user_id';
const ROW = 'seq, part, payer_key, client_user_id, original, completed_steps';
const SEQS = Array.from({ length: CHUNK }, () => '?').join(', ');

/** The rows waiting on their payers for one service and key, over either backend's executor. */
export class SqlWaiting implements WaitingTables {
  constructor(
    private readonly sql: Executor,
    readonly service: string,
  ) {}

  async file(id: string): Promise<WaitingFile | undefined> {
    const row = await this.sql.one(
      'SELECT id, name, format, shape, added_at FROM waiting_files WHERE service = ? AND id = ?',
      [this.service, id],
    );
    return row === undefined
      ? undefined
      : {
          id: String(row['id']),
          name: String(row['name']),
          format: String(row['format']),
          shape: String(row['shape']),
          addedAt: String(row['added_at']),
        };
  }

  async ofPayers(keys: readonly string[]): Promise<WaitingPlace[]> {
    const places: WaitingPlace[] = [];
    // An event batch names a few payers: one lookup by the index each.
    for (const key of new Set(keys))
      for (const row of await this.sql.all(
        `SELECT ${PLACE} FROM waiting_rows w WHERE w.service = ? AND w.payer_key = ? ORDER BY w.file_id, w.seq`,
        [this.service, key],
      ))
        places.push(placeOf(row));
    return places;
  }

  async checkedBefore(at: string, after: { fileId: string; seq: number }, limit: number): Promise<WaitingPlace[]> {
    const rows = await this.sql.all(
      `SELECT ${PLACE} FROM waiting_rows w
       LEFT JOIN journal_payers p ON p.service = w.service AND p.key = w.payer_key
       WHERE w.service = ? AND (w.file_id > ? OR (w.file_id = ? AND w.seq > ?))
         AND (p.checked_at IS NULL OR p.checked_at < ?)
       ORDER BY w.file_id, w.seq LIMIT ?`,
      [this.service, after.fileId, after.fileId, after.seq, at, limit],
    );
    return rows.map(placeOf);
  }

  async rows(fileId: string, seqs: readonly number[]): Promise<WaitingRow[]> {
    const rows: WaitingRow[] = [];
    for (const chunk of chunks([...seqs].sort((a, b) => a - b)))
      for (const row of await this.sql.all(
        `SELECT ${ROW} FROM waiting_rows WHERE service = ? AND file_id = ? AND seq IN (${SEQS}) ORDER BY seq`,
        [this.service, fileId, ...padded(chunk)],
      ))
        rows.push({
          seq: Number(row['seq']),
          part: Number(row['part']),
          payerKey: String(row['payer_key']),
          clientUserId: String(row['client_user_id']),
          original: String(row['original']),
          completedSteps: String(row['completed_steps']),
        });
    return rows;
  }

  async payerCount(after: string, limit: number): Promise<{ payers: number; last: string | undefined }> {
    // The rest of the last payer's rows are past the next page's start (keys after it): each payer is counted once.
    const row = await this.sql.one(
      'SELECT COUNT(DISTINCT payer_key) AS n, MAX(payer_key) AS last FROM (SELECT payer_key FROM waiting_rows ' +
        'WHERE service = ? AND payer_key > ? ORDER BY payer_key LIMIT ?) page',
      [this.service, after, limit],
    );
    const last = row?.['last'];
    return { payers: Number(row?.['n'] ?? 0), last: last === null || last === undefined ? undefined : String(last) };
  }

  async clear(fileId: string): Promise<void> {
    await this.sql.batch([
      ['DELETE FROM waiting_rows WHERE service = ? AND file_id = ?', [this.service, fileId]],
      ['DELETE FROM waiting_files WHERE service = ? AND id = ?', [this.service, fileId]],
    ]);
  }

  async append(fileId: string, rows: ReadonlyArray<Omit<WaitingRow, 'seq'>>): Promise<void> {
    const last = await this.sql.one('SELECT MAX(seq) AS n FROM waiting_rows WHERE service = ? AND file_id = ?', [
      this.service,
      fileId,
    ]);
    await this.sql.batch(this.inserts(fileId, Number(last?.['n'] ?? 0), rows));
  }

  async register(file: WaitingFile): Promise<void> {
    await this.sql.batch([this.fileInsert(file)]);
  }

  async replace(
    file: WaitingFile,
    gone: readonly number[],
    added: ReadonlyArray<Omit<WaitingRow, 'seq'>>,
  ): Promise<void> {
    const last = await this.sql.one('SELECT MAX(seq) AS n FROM waiting_rows WHERE service = ? AND file_id = ?', [
      this.service,
      file.id,
    ]);
    const statements: Statement[] = [this.fileInsert(file)];
    for (const chunk of chunks(gone))
      statements.push([
        `DELETE FROM waiting_rows WHERE service = ? AND file_id = ? AND seq IN (${SEQS})`,
        [this.service, file.id, ...padded(chunk)],
      ]);
    statements.push(...this.inserts(file.id, Number(last?.['n'] ?? 0), added));
    statements.push([
      'DELETE FROM waiting_files WHERE service = ? AND id = ? AND NOT EXISTS ' +
        '(SELECT 1 FROM waiting_rows WHERE service = ? AND file_id = ?)',
      [this.service, file.id, this.service, file.id],
    ]);
    await this.sql.batch(statements);
  }

  private fileInsert(file: WaitingFile): Statement {
    return [
      'INSERT INTO waiting_files (service, id, name, format, shape, added_at) VALUES (?, ?, ?, ?, ?, ?) ' +
        'ON CONFLICT (service, id) DO NOTHING',
      [this.service, file.id, file.name, file.format, file.shape, file.addedAt],
    ];
  }

  /** The rows added to a file, numbered after its last, a hundred a statement. */
  private inserts(fileId: string, after: number, rows: ReadonlyArray<Omit<WaitingRow, 'seq'>>): Statement[] {
    let seq = after;
    return chunks(rows).map((chunk) => [
      `INSERT INTO waiting_rows (service, file_id, ${ROW}) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      chunk.flatMap((row) => [
        this.service,
        fileId,
        ++seq,
        row.part,
        row.payerKey,
        row.clientUserId,
        row.original,
        row.completedSteps,
      ]),
    ]);
  }
}

function placeOf(row: Row): WaitingPlace {
  return {
    fileId: String(row['file_id']),
    seq: Number(row['seq']),
    payerKey: String(row['payer_key']),
    clientUserId: String(row['client_user_id']),
  };
}

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** A chunk of row numbers filled up to CHUNK with one no row has. */
function padded(seqs: readonly number[]): number[] {
  return [...seqs, ...Array.from({ length: CHUNK - seqs.length }, () => -1)];
}
