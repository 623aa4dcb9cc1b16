import type { Executor } from './SqlJournal.js';
import type { StoredSession, StoredUpload, WebTables } from './Store.js';

/** The web page's sessions and saved mappings for one service and key, over either backend's executor. */
export class SqlWeb implements WebTables {
  constructor(
    private readonly sql: Executor,
    readonly service: string,
  ) {}

  async session(tokenHash: string): Promise<StoredSession | undefined> {
    const row = await this.sql.one(
      'SELECT password_mark, user_id, csrf, ends_at, seen_at FROM web_sessions WHERE service = ? AND token_hash = ?',
      [this.service, tokenHash],
    );
    if (row === undefined) return undefined;
    return {
      tokenHash,
      passwordMark: String(row['password_mark']),
      ...(row['user_id'] === null || row['user_id'] === undefined ? {} : { userId: String(row['user_id']) }),
      csrf: String(row['csrf']),
      endsAt: Number(row['ends_at']),
      seenAt: Number(row['seen_at']),
    };
  }

  async putSession(session: StoredSession): Promise<void> {
    await this.sql.change(
      'INSERT INTO web_sessions (service, token_hash, password_mark, user_id, csrf, ends_at, seen_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [
        this.service,
        session.tokenHash,
        session.passwordMark,
        session.userId ?? null,
        session.csrf,
        session.endsAt,
        session.seenAt,
      ],
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

  async upload(id: string): Promise<(StoredUpload & { sentAs?: string }) | undefined> {
    const row = await this.sql.one('SELECT at, upload, fixes, sent_as FROM web_uploads WHERE service = ? AND id = ?', [
      this.service,
      id,
    ]);
    if (row === undefined) return undefined;
    const sentAs = row['sent_as'];
    return {
      ...{ id, at: String(row['at']), upload: String(row['upload']), fixes: String(row['fixes']) },
      ...(typeof sentAs === 'string' ? { sentAs } : {}),
    };
  }

  async uploadContent(id: string): Promise<Uint8Array | undefined> {
    const row = await this.sql.one('SELECT content FROM web_uploads WHERE service = ? AND id = ?', [this.service, id]);
    const content = row?.['content'];
    return content instanceof Uint8Array ? content : undefined;
  }

  async putUpload(upload: StoredUpload, content?: Uint8Array | null): Promise<void> {
    const { id, at, upload: json, fixes } = upload;
    if (content !== undefined) {
      await this.sql.batch([
        [
          'INSERT INTO web_uploads (service, id, at, upload, fixes, content) VALUES (?, ?, ?, ?, ?, ?) ' +
            'ON CONFLICT (service, id) DO UPDATE SET upload = excluded.upload, fixes = excluded.fixes, content = excluded.content',
          [this.service, id, at, json, fixes, content],
        ],
      ]);
      return;
    }
    await this.sql.batch([
      ['UPDATE web_uploads SET upload = ?, fixes = ? WHERE service = ? AND id = ?', [json, fixes, this.service, id]],
    ]);
  }

  async claimUpload(id: string, sentAs: string | undefined): Promise<boolean> {
    if (sentAs === undefined) {
      await this.sql.change('UPDATE web_uploads SET sent_as = NULL WHERE service = ? AND id = ?', [this.service, id]);
      return false;
    }
    const claimed = await this.sql.change(
      'UPDATE web_uploads SET sent_as = ? WHERE service = ? AND id = ? AND sent_as IS NULL',
      [sentAs, this.service, id],
    );
    return claimed > 0;
  }

  async deleteUploads(which: { ids: readonly string[] } | { before: string }): Promise<void> {
    if ('before' in which) {
      await this.sql.batch([['DELETE FROM web_uploads WHERE service = ? AND at < ?', [this.service, which.before]]]);
      return;
    }
    await this.sql.batch(
      which.ids.map((id) => ['DELETE FROM web_uploads WHERE service = ? AND id = ?', [this.service, id]] as const),
    );
  }

  async putMapping(headerKey: string, mapping: string): Promise<void> {
    await this.sql.change(
      'INSERT INTO web_mappings (service, header_key, mapping) VALUES (?, ?, ?) ' +
        'ON CONFLICT (service, header_key) DO UPDATE SET mapping = excluded.mapping',
      [this.service, headerKey, mapping],
    );
  }
}
