import { inLists } from './inList.js';
import { auditInserts, type Executor, type Statement } from './SqlJournal.js';
import type { AuditFilter, AuditLine, ControlTables, Role, SignInTries, UserLink, WebUser } from './Store.js';

type Row = Record<string, unknown>;

const USER_COLUMNS = 'id, name, email, role, password_hash, created_at, created_by, disabled_at';

/** A wait long enough to stand for "as long as any": the counts of CASE in countTry stop growing there. */
const LONGEST_COUNT = 64;

/** The web page's users, their one-time links, sign-in tries and the audit trail, over either backend's executor. */
export class SqlControls implements ControlTables {
  constructor(
    private readonly sql: Executor,
    readonly service: string,
  ) {}

  async users(): Promise<WebUser[]> {
    const rows = await this.sql.all(`SELECT ${USER_COLUMNS} FROM web_users WHERE service = ? ORDER BY name_key`, [
      this.service,
    ]);
    return rows.map(userOf);
  }

  async user(which: { id: string } | { name: string } | { email: string }): Promise<WebUser | undefined> {
    const [column, value] =
      'id' in which
        ? ['id', which.id]
        : 'name' in which
          ? ['name_key', which.name.toLowerCase()]
          : ['email_key', which.email.toLowerCase()];
    const row = await this.sql.one(
      `SELECT ${USER_COLUMNS} FROM web_users WHERE service = ? AND ${column} = ? ORDER BY created_at LIMIT 1`,
      [this.service, value],
    );
    return row && userOf(row);
  }

  async addUser(user: WebUser): Promise<boolean> {
    const added = await this.sql.change(
      `INSERT INTO web_users (service, name_key, email_key, ${USER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ` +
        'ON CONFLICT (service, name_key) DO NOTHING',
      [this.service, user.name.toLowerCase(), user.email?.toLowerCase() ?? null, ...userValues(user)],
    );
    // The team has a named user: the shared password's sessions end (it signs in no more).
    if (added > 0)
      await this.sql.change('DELETE FROM web_sessions WHERE service = ? AND user_id IS NULL', [this.service]);
    return added > 0;
  }

  async putUser(user: WebUser, passwordSetAt?: string): Promise<void> {
    const statements: Statement[] = [
      [
        'UPDATE web_users SET name = ?, name_key = ?, email = ?, email_key = ?, role = ?, password_hash = ?, ' +
          'disabled_at = ? WHERE service = ? AND id = ?',
        [
          user.name,
          user.name.toLowerCase(),
          user.email ?? null,
          user.email?.toLowerCase() ?? null,
          user.role,
          user.passwordHash ?? null,
          user.disabledAt ?? null,
          this.service,
          user.id,
        ],
      ],
    ];
    // A user disabled, or whose password was just set, is signed out everywhere at once (every serve reads the session
    // from here at each request), and their other one-time links are spent: one handed out before cannot set it again.
    const ended = passwordSetAt ?? user.disabledAt;
    if (ended !== undefined)
      statements.push(
        ['DELETE FROM web_sessions WHERE service = ? AND user_id = ?', [this.service, user.id]],
        [
          'UPDATE web_user_links SET used_at = ? WHERE service = ? AND user_id = ? AND used_at IS NULL',
          [ended, this.service, user.id],
        ],
      );
    await this.sql.batch(statements);
  }

  async addUserLink(link: UserLink): Promise<void> {
    await this.sql.change(
      'INSERT INTO web_user_links (service, token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
      [this.service, link.tokenHash, link.userId, link.createdAt, link.expiresAt],
    );
  }

  async takeUserLink(tokenHash: string, at: string): Promise<string | undefined> {
    const row = await this.sql.one(
      'UPDATE web_user_links SET used_at = ? WHERE service = ? AND token_hash = ? AND used_at IS NULL AND expires_at > ? ' +
        'RETURNING user_id',
      [at, this.service, tokenHash, at],
    );
    return row === undefined ? undefined : String(row['user_id']);
  }

  async countTry(
    keys: readonly string[],
    at: number,
    waitOf: (failures: number) => number,
  ): Promise<Map<string, SignInTries>> {
    // The wait after each count, as SQL: the count and its wait are written in one statement, so that tries sent
    // together each see the ones before.
    const wait = waitCase('signin_tries.failures + 1', waitOf);
    const counted = new Map<string, SignInTries>();
    for (const key of keys) {
      const row = await this.sql.one(
        'INSERT INTO signin_tries (service, key, failures, next_try_at, updated_at) VALUES (?, ?, 1, ?, ?) ' +
          `ON CONFLICT (service, key) DO UPDATE SET failures = signin_tries.failures + 1, next_try_at = ? + ${wait}, ` +
          'updated_at = excluded.updated_at WHERE signin_tries.next_try_at <= ? RETURNING failures, next_try_at',
        [this.service, key, at + Math.floor(waitOf(1)), at, at, at],
      );
      // Not counted: another try made it wait meanwhile.
      if (row === undefined) {
        const now = await this.tries([key]);
        counted.set(key, { ...(now.get(key) ?? { failures: 0, nextTryAt: 0 }), counted: false });
        continue;
      }
      counted.set(key, { failures: Number(row['failures']), nextTryAt: Number(row['next_try_at']), counted: true });
    }
    return counted;
  }

  async tries(keys: readonly string[]): Promise<Map<string, SignInTries>> {
    const found = new Map<string, SignInTries>();
    for (const { marks, params } of inLists(keys)) {
      const rows = await this.sql.all(
        `SELECT key, failures, next_try_at FROM signin_tries WHERE service = ? AND key IN (${marks})`,
        [this.service, ...params],
      );
      for (const row of rows)
        found.set(String(row['key']), { failures: Number(row['failures']), nextTryAt: Number(row['next_try_at']) });
    }
    return found;
  }

  async clearTries(keys: readonly string[]): Promise<void> {
    await this.sql.batch(
      keys.map((key) => ['DELETE FROM signin_tries WHERE service = ? AND key = ?', [this.service, key]] as const),
    );
  }

  async uncountTry(keys: readonly string[], waitOf: (failures: number) => number): Promise<void> {
    // The wait goes back to the one the count before gave, from the same last try.
    const wait = waitCase('failures - 1', waitOf);
    await this.sql.batch(
      keys.map(
        (key) =>
          [
            `UPDATE signin_tries SET failures = failures - 1, next_try_at = updated_at + ${wait} ` +
              'WHERE service = ? AND key = ? AND failures > 0',
            [this.service, key],
          ] as const,
      ),
    );
  }

  async pruneTries(before: number, keep: number): Promise<number> {
    let gone = await this.sql.change('DELETE FROM signin_tries WHERE service = ? AND updated_at < ?', [
      this.service,
      before,
    ]);
    const row = await this.sql.one('SELECT COUNT(*) AS n FROM signin_tries WHERE service = ?', [this.service]);
    const over = Number(row?.['n'] ?? 0) - keep;
    // More than kept (a spray of addresses or names): the oldest counts go first; a device's never (it is a browser that
    // signed in, and its count is what slows a thief of its cookie).
    if (over > 0)
      gone += await this.sql.change(
        'DELETE FROM signin_tries WHERE service = ? AND key IN (SELECT key FROM signin_tries WHERE service = ? ' +
          "AND key NOT LIKE 'device:%' ORDER BY updated_at LIMIT ?)",
        [this.service, this.service, over],
      );
    return gone;
  }

  async audit(lines: readonly AuditLine[]): Promise<void> {
    if (lines.length > 0) await this.sql.batch(auditInserts(this.service, lines));
  }

  async auditLines(filter: AuditFilter, offset: number, limit: number): Promise<AuditLine[]> {
    const [where, params] = auditWhere(this.service, filter);
    const rows = await this.sql.all(
      `SELECT seq, at, who, address, action, subject, detail FROM audit_trail WHERE ${where} ` +
        'ORDER BY seq DESC LIMIT ? OFFSET ?',
      [...params, limit, offset],
    );
    return rows.map((row) => ({
      seq: Number(row['seq']),
      at: String(row['at']),
      who: String(row['who']),
      address: String(row['address']),
      action: String(row['action']),
      subject: String(row['subject']),
      detail: String(row['detail']),
    }));
  }

  async auditCount(filter: AuditFilter): Promise<number> {
    const [where, params] = auditWhere(this.service, filter);
    const row = await this.sql.one(`SELECT COUNT(*) AS n FROM audit_trail WHERE ${where}`, params);
    return Number(row?.['n'] ?? 0);
  }
}

/** The wait `waitOf` gives the count `count` (an SQL expression), as SQL: its values written out, up to a long one. */
function waitCase(count: string, waitOf: (failures: number) => number): string {
  const waits = Array.from({ length: LONGEST_COUNT + 1 }, (_, i) => `WHEN ${i} THEN ${Math.floor(waitOf(i))}`);
  return `CASE ${count} ${waits.join(' ')} ELSE ${Math.floor(waitOf(LONGEST_COUNT + 1))} END`;
}

function auditWhere(service: string, filter: AuditFilter): [string, Array<string>] {
  const parts = ['service = ?'];
  const params = [service];
  const add = (sql: string, value: string | undefined) => {
    if (value === undefined || value === '') return;
    parts.push(sql);
    params.push(value);
  };
  add('who = ?', filter.who);
  add('action = ?', filter.action);
  add('subject = ?', filter.subject);
  add('at >= ?', filter.from);
  add('at < ?', filter.to);
  return [parts.join(' AND '), params];
}

function userValues(user: WebUser): Array<string | null> {
  return [
    user.id,
    user.name,
    user.email ?? null,
    user.role,
    user.passwordHash ?? null,
    user.createdAt,
    user.createdBy,
    user.disabledAt ?? null,
  ];
}

function userOf(row: Row): WebUser {
  const text = (name: string) => (row[name] === null || row[name] === undefined ? undefined : String(row[name]));
  return {
    id: String(row['id']),
    name: String(row['name']),
    role: String(row['role']) as Role,
    createdAt: String(row['created_at']),
    createdBy: String(row['created_by']),
    ...(text('email') === undefined ? {} : { email: text('email')! }),
    ...(text('password_hash') === undefined ? {} : { passwordHash: text('password_hash')! }),
    ...(text('disabled_at') === undefined ? {} : { disabledAt: text('disabled_at')! }),
  };
}
