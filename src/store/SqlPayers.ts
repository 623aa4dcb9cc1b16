import { inLists } from './inList.js';
import type { Executor, Statement } from './SqlJournal.js';
import type { PayerFilter, PayerTables, StoredPayer } from './Store.js';

type Value = string | number | null;

const ROWS_A_STATEMENT = 100;

/** The web page's payers of one service and key, over either backend's executor. */
export class SqlPayers implements PayerTables {
  constructor(
    private readonly sql: Executor,
    readonly service: string,
    readonly span: number,
  ) {}

  async sources(): Promise<Map<string, number>> {
    const rows = await this.sql.all('SELECT path, mtime_ms FROM web_payer_sources WHERE service = ?', [this.service]);
    return new Map(rows.map((row) => [String(row['path']), Number(row['mtime_ms'])]));
  }

  async get(ids: readonly string[]): Promise<Map<string, StoredPayer>> {
    const found = new Map<string, StoredPayer>();
    for (const { marks, params } of inLists(ids)) {
      const rows = await this.sql.all(
        `SELECT client_user_id, category, line, seen FROM web_payers WHERE service = ? AND client_user_id IN (${marks})`,
        [this.service, ...params],
      );
      for (const row of rows) {
        const id = String(row['client_user_id']);
        found.set(id, {
          clientUserId: id,
          category: String(row['category']),
          line: String(row['line']),
          seen: String(row['seen']),
        });
      }
    }
    return found;
  }

  async put(
    payers: readonly StoredPayer[],
    sources: ReadonlyArray<readonly [path: string, mtimeMs: number]>,
  ): Promise<void> {
    const last = await this.sql.one('SELECT MAX(seq) AS n FROM web_payers WHERE service = ?', [this.service]);
    let seq = Number(last?.['n'] ?? 0);
    // A payer known keeps its place in the order; a new one comes after the others (numbered in the order given).
    // Written in the order of their ids, many rows a statement: two processes writing the same payers lock them in
    // the same order (no deadlock), and a server gets one round trip for each hundred payers.
    const rows = payers
      .map((payer): Value[] => [
        this.service,
        payer.clientUserId,
        payer.clientUserId.toLowerCase(),
        ++seq,
        payer.category,
        payer.line,
        payer.seen,
      ])
      .sort((a, b) => (String(a[1]) < String(b[1]) ? -1 : String(a[1]) > String(b[1]) ? 1 : 0));
    const statements: Statement[] = [];
    for (let i = 0; i < rows.length; i += ROWS_A_STATEMENT) {
      const some = rows.slice(i, i + ROWS_A_STATEMENT);
      statements.push([
        'INSERT INTO web_payers (service, client_user_id, search_id, seq, category, line, seen) VALUES ' +
          some.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ') +
          ' ON CONFLICT (service, client_user_id) DO UPDATE SET category = excluded.category, line = excluded.line, ' +
          'seen = excluded.seen',
        some.flat(),
      ]);
    }
    for (const [path, mtimeMs] of sources)
      statements.push([
        'INSERT INTO web_payer_sources (service, path, mtime_ms) VALUES (?, ?, ?) ' +
          'ON CONFLICT (service, path) DO UPDATE SET mtime_ms = excluded.mtime_ms',
        [this.service, path, mtimeMs],
      ]);
    await this.sql.batch(statements);
  }

  async counts(within: readonly [from: number, before: number]): Promise<Map<string, number>> {
    const rows = await this.sql.all(
      'SELECT category, COUNT(*) AS n FROM web_payers WHERE service = ? AND seq >= ? AND seq < ? GROUP BY category',
      [this.service, ...within],
    );
    return new Map(rows.map((row) => [String(row['category']), Number(row['n'])]));
  }

  async lastPlace(): Promise<number> {
    const row = await this.sql.one('SELECT MAX(seq) AS n FROM web_payers WHERE service = ?', [this.service]);
    return Number(row?.['n'] ?? 0);
  }

  async count(filter: PayerFilter): Promise<number> {
    const { from, params } = this.where(filter);
    const row = await this.sql.one(`SELECT COUNT(*) AS n ${from}`, params);
    return Number(row?.['n'] ?? 0);
  }

  async find(filter: PayerFilter, offset: number, limit: number): Promise<string[]> {
    const { from, params } = this.where(filter);
    const rows = await this.sql.all(`SELECT w.line ${from} ORDER BY w.seq LIMIT ? OFFSET ?`, [
      ...params,
      limit,
      offset,
    ]);
    return rows.map((row) => String(row['line']));
  }

  async places(filter: PayerFilter): Promise<number[]> {
    const { from, params } = this.where(filter);
    const rows = await this.sql.all(`SELECT w.seq ${from} ORDER BY w.seq`, params);
    return rows.map((row) => Number(row['seq']));
  }

  async at(places: readonly number[]): Promise<string[]> {
    const lines = new Map<number, string>();
    for (const { marks, params } of inLists(places)) {
      const rows = await this.sql.all(`SELECT seq, line FROM web_payers WHERE service = ? AND seq IN (${marks})`, [
        this.service,
        ...params,
      ]);
      for (const row of rows) lines.set(Number(row['seq']), String(row['line']));
    }
    return places.flatMap((place) => lines.get(place) ?? []);
  }

  /**
   * The payers of a filter, as a FROM clause and its parameters: eight texts at most, so each is prepared once. A
   * search joins the payer directory, as it is now: an entry changed or forgotten is found, or not, at once.
   */
  private where(filter: PayerFilter): { from: string; params: Value[] } {
    const conditions = ['w.service = ?'];
    const params: Value[] = [this.service];
    if (filter.category !== undefined) {
      conditions.push('w.category = ?');
      params.push(filter.category);
    }
    if (filter.within !== undefined) {
      conditions.push('w.seq >= ? AND w.seq < ?');
      params.push(...filter.within);
    }
    if (filter.search === undefined) return { from: `FROM web_payers w WHERE ${conditions.join(' AND ')}`, params };
    // A text to find anywhere in the id, or in who the directory says the payer is ("Ada Lovelace" across the two
    // names), in any case; its own % and _ are taken as they are.
    const pattern = `%${filter.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push(
      "(w.search_id LIKE ? ESCAPE '\\' OR lower(COALESCE(d.first_name, '') || ' ' || COALESCE(d.last_name, '') || ' ' || " +
        "COALESCE(d.company_name, '') || ' ' || COALESCE(d.email, '')) LIKE ? ESCAPE '\\')",
    );
    params.push(pattern, pattern);
    const join = 'LEFT JOIN payer_directory d ON d.service = w.service AND d.client_user_id = w.client_user_id';
    return { from: `FROM web_payers w ${join} WHERE ${conditions.join(' AND ')}`, params };
  }
}
