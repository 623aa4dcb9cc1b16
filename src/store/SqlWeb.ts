import type { Executor } from './SqlJournal.js';
import type { StoredSession, WebTables } from './Store.js';

/** The web page's sessions and saved mappings for one service and key, over either backend's executor. */
export class SqlWeb implements WebTables {
  constructor(
    private readonly sql: Executor,
    readonly service: string,
  ) {}

  async sessions(passwordMark: string): Promise<StoredSession[]> {
    const rows = await this.sql.all(
      'SELECT token_hash, csrf, ends_at, seen_at FROM web_sessions WHERE service = ? AND password_mark = ?',
      [this.service, passwordMark],
    );
    return rows.map((row) => ({
      tokenHash: String(row['token_hash']),
      passwordMark,
      csrf: String(row['csrf']),
      // PostgreSQL gives a BIGINT as text.
      endsAt: Number(row['ends_at']),
      seenAt: Number(row['seen_at']),
    }));
  }

  async putSession(session: StoredSession): Promise<void> {
    await this.sql.change(
      'INSERT INTO web_sessions (service, token_hash, password_mark, csrf, ends_at, seen_at) VALUES (?, ?, ?, ?, ?, ?)',
      [this.service, session.tokenHash, session.passwordMark, session.csrf, session.endsAt, session.seenAt],
    );
  }

  async touchSession(tokenHash: string, seenAt: number): Promise<void> {
    await this.sql.change('UPDATE web_sessions SET seen_at = ? WHERE service = ? AND token_hash = ?', [
      seenAt,
      this.service,
      tokenHash,
    ]);
  }

  async deleteSessions(tokenHashes?: readonly string[]): Promise<void> {
    if (tokenHashes === undefined) {
      await this.sql.change('DELETE FROM web_sessions WHERE service = ?', [this.service]);
      return;
    }
    await this.sql.batch(
      tokenHashes.map(
        (hash) => ['DELETE FROM web_sessions WHERE service = ? AND token_hash = ?', [this.service, hash]] as const,
      ),
    );
  }

  async mappings(): Promise<Map<string, string>> {
    const rows = await this.sql.all('SELECT header_key, mapping FROM web_mappings WHERE service = ?', [this.service]);
    return new Map(rows.map((row) => [String(row['header_key']), String(row['mapping'])]));
  }

  async putMapping(headerKey: string, mapping: string): Promise<void> {
    await this.sql.change(
      'INSERT INTO web_mappings (service, header_key, mapping) VALUES (?, ?, ?) ' +
        'ON CONFLICT (service, header_key) DO UPDATE SET mapping = excluded.mapping',
      [this.service, headerKey, mapping],
    );
  }
}
