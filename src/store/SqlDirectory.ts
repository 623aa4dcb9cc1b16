import { createHash, randomBytes } from 'node:crypto';
import type { ComplianceRequest } from '../core/schemas.js';
import { inLists } from './inList.js';
import { directoryUpserts, type Executor } from './SqlJournal.js';
import type {
  DirectoryEntry,
  Forgotten,
  MailGuard,
  MailRecord,
  MailState,
  PayerDirectoryTables,
  PayerLink,
  SignatureRecord,
  SignedHow,
} from './Store.js';

type Row = Record<string, unknown>;

/** The payer directory, links, mails and signatures of one service and key, over either backend's executor. */
export class SqlDirectory implements PayerDirectoryTables {
  constructor(
    private readonly sql: Executor,
    readonly service: string,
  ) {}

  async entries(clientUserIds: readonly string[]): Promise<Map<string, DirectoryEntry>> {
    const found = new Map<string, DirectoryEntry>();
    for (const row of await this.byPayers(
      'payer_directory',
      'client_user_id, first_name, last_name, email, company_name, updated_at',
      clientUserIds,
    )) {
      const entry = entryOf(row);
      found.set(entry.clientUserId, entry);
    }
    return found;
  }

  async putEntries(entries: readonly DirectoryEntry[]): Promise<void> {
    if (entries.length > 0) await this.sql.batch(directoryUpserts(this.service, entries));
  }

  async addLink(link: PayerLink): Promise<void> {
    await this.sql.change(
      'INSERT INTO payer_links (service, token_hash, client_user_id, created_at, expires_at, revoked_at, opened_at) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?)',
      [
        this.service,
        link.tokenHash,
        link.clientUserId,
        link.createdAt,
        link.expiresAt,
        link.revokedAt ?? null,
        link.openedAt ?? null,
      ],
    );
  }

  async link(tokenHash: string): Promise<PayerLink | undefined> {
    const row = await this.sql.one(
      'SELECT token_hash, client_user_id, created_at, expires_at, revoked_at, opened_at FROM payer_links ' +
        'WHERE service = ? AND token_hash = ?',
      [this.service, tokenHash],
    );
    return row === undefined ? undefined : linkOf(row);
  }

  revokeLinks(clientUserId: string, at: string): Promise<number> {
    return this.sql.change(
      'UPDATE payer_links SET revoked_at = ? WHERE service = ? AND client_user_id = ? AND revoked_at IS NULL',
      [at, this.service, clientUserId],
    );
  }

  async openedLink(tokenHash: string, at: string): Promise<void> {
    await this.sql.change(
      'UPDATE payer_links SET opened_at = ? WHERE service = ? AND token_hash = ? AND opened_at IS NULL',
      [at, this.service, tokenHash],
    );
  }

  async putMail(mail: MailRecord, guard: MailGuard = DEFAULT_GUARD[mail.state]): Promise<boolean> {
    const states = guard.over.filter((state) => state !== 'none');
    const conditions = [
      ...(states.length > 0 ? [`payer_mails.state IN (${states.map(() => '?').join(', ')})`] : []),
      ...(guard.claimedBefore === undefined ? [] : ["(payer_mails.state = 'sending' AND payer_mails.at < ?)"]),
    ];
    const params = [...states, ...(guard.claimedBefore === undefined ? [] : [guard.claimedBefore])];
    const values = [this.service, mail.clientUserId, mail.step, mail.state, mail.reason ?? null, mail.at];
    const anyState = states.length === MAIL_STATES.length;
    if (!guard.over.includes('none')) {
      // Only over a record there is.
      if (conditions.length === 0) return false;
      return (
        (await this.sql.change(
          'UPDATE payer_mails SET state = ?, reason = ?, at = ? WHERE service = ? AND client_user_id = ? AND step = ? ' +
            `AND (${conditions.join(' OR ')})`,
          [mail.state, mail.reason ?? null, mail.at, this.service, mail.clientUserId, mail.step, ...params],
        )) > 0
      );
    }
    const update =
      conditions.length === 0
        ? 'DO NOTHING'
        : 'DO UPDATE SET state = excluded.state, reason = excluded.reason, at = excluded.at' +
          (anyState ? '' : ` WHERE ${conditions.join(' OR ')}`);
    const written = await this.sql.change(
      'INSERT INTO payer_mails (service, client_user_id, step, state, reason, at) VALUES (?, ?, ?, ?, ?, ?) ' +
        `ON CONFLICT (service, client_user_id, step) ${update}`,
      [...values, ...(anyState ? [] : params)],
    );
    return written > 0;
  }

  async mails(clientUserIds: readonly string[]): Promise<MailRecord[]> {
    const rows = await this.byPayers('payer_mails', 'client_user_id, step, state, reason, at', clientUserIds);
    return rows.map(mailOf).sort((a, b) => compare(a.clientUserId, b.clientUserId) || compare(a.step, b.step));
  }

  async mailsDue(now: string, claimedBefore: string, limit: number): Promise<MailRecord[]> {
    const rows = await this.sql.all(
      'SELECT client_user_id, step, state, reason, at FROM payer_mails WHERE service = ? AND ' +
        "((state = 'due' AND at <= ?) OR (state = 'sending' AND at < ?)) ORDER BY at, client_user_id, step LIMIT ?",
      [this.service, now, claimedBefore, limit],
    );
    return rows.map(mailOf);
  }

  async links(clientUserIds: readonly string[]): Promise<PayerLink[]> {
    const rows = await this.byPayers(
      'payer_links',
      'token_hash, client_user_id, created_at, expires_at, revoked_at, opened_at',
      clientUserIds,
    );
    return rows.map(linkOf).sort((a, b) => compare(a.createdAt, b.createdAt) || compare(a.tokenHash, b.tokenHash));
  }

  async entriesAfter(after: string, limit: number): Promise<DirectoryEntry[]> {
    const rows = await this.sql.all(
      'SELECT client_user_id, first_name, last_name, email, company_name, updated_at FROM payer_directory ' +
        'WHERE service = ? AND client_user_id > ? ORDER BY client_user_id LIMIT ?',
      [this.service, after, limit],
    );
    return rows.map(entryOf);
  }

  async sign(signature: SignatureRecord): Promise<boolean> {
    const written = await this.sql.change(
      'INSERT INTO payer_signatures (service, client_user_id, how, at) VALUES (?, ?, ?, ?) ' +
        'ON CONFLICT (service, client_user_id) DO NOTHING',
      [this.service, signature.clientUserId, signature.how, signature.at],
    );
    return written > 0;
  }

  async signatures(clientUserIds: readonly string[]): Promise<Map<string, SignatureRecord>> {
    const found = new Map<string, SignatureRecord>();
    for (const row of await this.byPayers('payer_signatures', 'client_user_id, how, at', clientUserIds)) {
      const clientUserId = String(row['client_user_id']);
      found.set(clientUserId, { clientUserId, how: String(row['how']) as SignedHow, at: String(row['at']) });
    }
    return found;
  }

  async forget(clientUserId: string): Promise<Forgotten | undefined> {
    const count = async (table: string) =>
      Number(
        (
          await this.sql.one(`SELECT COUNT(*) AS n FROM ${table} WHERE service = ? AND client_user_id = ?`, [
            this.service,
            clientUserId,
          ])
        )?.['n'] ?? 0,
      );
    const found: Forgotten = {
      entry: (await count('payer_directory')) > 0,
      links: await count('payer_links'),
      mails: await count('payer_mails'),
      signature: (await count('payer_signatures')) > 0,
    };
    if (!found.entry && found.links === 0 && found.mails === 0 && !found.signature) return undefined;
    const payer = [this.service, clientUserId] as const;
    await this.sql.batch([
      ['DELETE FROM payer_directory WHERE service = ? AND client_user_id = ?', payer],
      ['DELETE FROM payer_links WHERE service = ? AND client_user_id = ?', payer],
      // A mail server's words may quote what was sent; the step and its state are what the mails need kept.
      ['UPDATE payer_mails SET reason = NULL WHERE service = ? AND client_user_id = ?', payer],
    ]);
    return found;
  }

  /** The rows of a table for these payers, 512 ids a statement at most. */
  private async byPayers(table: string, columns: string, clientUserIds: readonly string[]): Promise<Row[]> {
    const rows: Row[] = [];
    for (const { marks, params } of inLists(clientUserIds))
      rows.push(
        ...(await this.sql.all(`SELECT ${columns} FROM ${table} WHERE service = ? AND client_user_id IN (${marks})`, [
          this.service,
          ...params,
        ])),
      );
    return rows;
  }
}

/** A payer's entry from the body a row registers them with: its names, e-mail and company, none of the rest. */
export function directoryEntryOf(body: ComplianceRequest, updatedAt: string): DirectoryEntry {
  const given = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value);
  const firstName = given(body.firstName);
  const lastName = given(body.lastName);
  const email = given(body.email);
  const companyName = given(body.companyName);
  return {
    clientUserId: body.clientUserId,
    ...(firstName === undefined ? {} : { firstName }),
    ...(lastName === undefined ? {} : { lastName }),
    ...(email === undefined ? {} : { email }),
    ...(companyName === undefined ? {} : { companyName }),
    updatedAt,
  };
}

/**
 * A new personal link's token and the hash the store keeps of it: 256 random bits, base64url (43 characters), and
 * its sha-256 in hex. The token itself goes into the mail and nowhere else.
 */
export function newLinkToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: linkTokenHash(token) };
}

/** The hash a link is stored and found by. */
export function linkTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

const MAIL_STATES: readonly MailState[] = ['due', 'sending', 'sent', 'refused', 'dropped'];

/** What each state is written over unless told otherwise (Store.ts says why). */
const DEFAULT_GUARD: Record<MailState, MailGuard> = {
  sending: { over: ['none', 'due', 'refused'] },
  due: { over: ['none', 'refused'] },
  sent: { over: ['none', ...MAIL_STATES] },
  refused: { over: ['none', ...MAIL_STATES] },
  dropped: { over: ['none', ...MAIL_STATES] },
};

function mailOf(row: Row): MailRecord {
  return {
    clientUserId: String(row['client_user_id']),
    step: String(row['step']),
    state: String(row['state']) as MailState,
    ...optional('reason', row['reason']),
    at: String(row['at']),
  };
}

function linkOf(row: Row): PayerLink {
  return {
    tokenHash: String(row['token_hash']),
    clientUserId: String(row['client_user_id']),
    createdAt: String(row['created_at']),
    expiresAt: String(row['expires_at']),
    ...optional('revokedAt', row['revoked_at']),
    ...optional('openedAt', row['opened_at']),
  };
}

function entryOf(row: Row): DirectoryEntry {
  return {
    clientUserId: String(row['client_user_id']),
    ...optional('firstName', row['first_name']),
    ...optional('lastName', row['last_name']),
    ...optional('email', row['email']),
    ...optional('companyName', row['company_name']),
    updatedAt: String(row['updated_at']),
  };
}

/** A column that may be NULL as an optional field: absent when NULL. */
function optional<K extends string>(key: K, value: unknown): { [P in K]?: string } {
  return value === null || value === undefined ? {} : ({ [key]: String(value) } as { [P in K]?: string });
}

/** Code-unit order, the same on both backends' ids (a locale's collation is not). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
