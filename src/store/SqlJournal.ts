import { inLists } from './inList.js';
import type {
  AuditLine,
  CallRecord,
  DirectoryEntry,
  JournalTables,
  JournalWrite,
  PayerChange,
  PayerRecord,
} from './Store.js';

type Value = string | number | Uint8Array | null;
type Row = Record<string, unknown>;
/** One statement: SQL with `?` for each parameter, and the parameters. */
export type Statement = readonly [sql: string, params: readonly Value[]];

/** What a backend runs the journal's SQL with: the same SQL on SQLite and PostgreSQL. */
export interface Executor {
  one(sql: string, params: readonly Value[]): Promise<Row | undefined>;
  all(sql: string, params: readonly Value[]): Promise<Row[]>;
  /** The statements in one transaction: all of them or, when it throws, none. */
  batch(statements: readonly Statement[]): Promise<void>;
  /**
   * One statement on its own, and how many rows it changed. `durable`: on disk when the promise settles, even
   * against a power loss (what is answered 2xx to a sender that will not send again).
   */
  change(sql: string, params: readonly Value[], durable?: boolean): Promise<number>;
}

const PAYER_COLUMNS = [
  'digest',
  'field_digests',
  'user_id',
  'agreement_url',
  'kyc_url',
  'kyc_status',
  'agreement_status',
  'is_compliant',
  'agreement_done',
  'account_ids',
  'accounts_known',
  'since',
  'checked_at',
] as const;
const COLUMNS = PAYER_COLUMNS.join(', ');
const UPSERT_PAYER =
  `INSERT INTO journal_payers (service, key, ${COLUMNS}) VALUES (?, ?, ${PAYER_COLUMNS.map(() => '?').join(', ')}) ` +
  `ON CONFLICT (service, key) DO UPDATE SET ${PAYER_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}`;
// A change of the payer's history, unless its statuses and accounts are those of its latest change already.
const ADD_CHANGE = `
  INSERT INTO journal_payer_changes (service, key, seq, at, kyc_status, agreement_status, accounts)
  SELECT ?, ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, CAST(? AS INTEGER) FROM journal_payer_changes WHERE service = ? AND key = ?
  HAVING NOT EXISTS (
    SELECT 1 FROM journal_payer_changes latest
    WHERE latest.service = ? AND latest.key = ? AND latest.kyc_status = ? AND latest.agreement_status = ?
      AND latest.accounts = ?
      AND latest.seq = (SELECT MAX(seq) FROM journal_payer_changes WHERE service = ? AND key = ?))`;
const ENTRY_COLUMNS = ['first_name', 'last_name', 'email', 'company_name'] as const;
const ENTRIES_A_STATEMENT = 100;
// The same values leave the row as it is: `updated_at` says when the values last changed, which is what a copy of
// two stores compares, and a re-run of a file changes nothing on disk.
const CHANGED = ENTRY_COLUMNS.map((c) => `payer_directory.${c} IS DISTINCT FROM excluded.${c}`).join(' OR ');
const UPSERT_TAIL =
  ` ON CONFLICT (service, client_user_id) DO UPDATE SET ${ENTRY_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}, ` +
  `updated_at = excluded.updated_at WHERE ${CHANGED}`;

const TABLES = [
  'journal_calls',
  'journal_payers',
  'journal_payer_changes',
  'journal_settings',
  'journal_accounts',
  'payer_directory',
  'payer_links',
  'payer_mails',
  'payer_signatures',
];

/** The journal of one service and key, over either backend's executor. */
export class SqlJournal implements JournalTables {
  constructor(
    private readonly sql: Executor,
    readonly service: string,
  ) {}

  async call(key: string): Promise<CallRecord | undefined> {
    const row = await this.sql.one('SELECT state, status, answer FROM journal_calls WHERE service = ? AND key = ?', [
      this.service,
      key,
    ]);
    if (row === undefined) return undefined;
    const answer = JSON.parse(String(row['answer'])) as Record<string, string>;
    if (row['state'] === 'done') return { state: 'done', status: Number(row['status'] ?? 200), answer };
    return Object.keys(answer).length === 0 ? { state: 'sent' } : { state: 'sent', answer };
  }

  async payer(key: string): Promise<PayerRecord | undefined> {
    const row = await this.sql.one(`SELECT ${COLUMNS} FROM journal_payers WHERE service = ? AND key = ?`, [
      this.service,
      key,
    ]);
    return row === undefined ? undefined : payerOf(row);
  }

  async payers(keys?: Iterable<string>): Promise<Map<string, PayerRecord>> {
    const found = new Map<string, PayerRecord>();
    const wanted = keys === undefined ? undefined : new Set(keys);
    // A few thousand payers are looked up by their keys (a statement for each 512); many more (a whole file) in one
    // pass over the service's.
    if (wanted !== undefined && wanted.size <= 4096) {
      for (const { marks, params } of inLists(wanted)) {
        const rows = await this.sql.all(
          `SELECT key, ${COLUMNS} FROM journal_payers WHERE service = ? AND key IN (${marks})`,
          [this.service, ...params],
        );
        for (const row of rows) found.set(String(row['key']), payerOf(row));
      }
      return found;
    }
    const rows = await this.sql.all(`SELECT key, ${COLUMNS} FROM journal_payers WHERE service = ?`, [this.service]);
    for (const row of rows) {
      const key = String(row['key']);
      if (wanted === undefined || wanted.has(key)) found.set(key, payerOf(row));
    }
    return found;
  }

  async payersAfter(after: string, limit: number): Promise<Array<[string, PayerRecord]>> {
    const rows = await this.sql.all(
      `SELECT key, ${COLUMNS} FROM journal_payers WHERE service = ? AND key > ? ORDER BY key LIMIT ?`,
      [this.service, after, limit],
    );
    return rows.map((row) => [String(row['key']), payerOf(row)]);
  }

  async payerKeyOfUser(userId: string): Promise<string | undefined> {
    const row = await this.sql.one('SELECT key FROM journal_payers WHERE service = ? AND user_id = ? LIMIT 1', [
      this.service,
      userId,
    ]);
    return row === undefined ? undefined : String(row['key']);
  }

  async payerOfAccount(accountId: string): Promise<{ key: string; clientUserId?: string } | undefined> {
    const row = await this.sql.one(
      'SELECT payer_key, client_user_id FROM journal_accounts WHERE service = ? AND account_id = ?',
      [this.service, accountId],
    );
    if (row === undefined) return undefined;
    const clientUserId = row['client_user_id'];
    return { key: String(row['payer_key']), ...(typeof clientUserId === 'string' ? { clientUserId } : {}) };
  }

  async payersWithNewAccounts(from: string, to: string): Promise<string[]> {
    // A change that holds more accounts than the one before it (none before: none) is an account made then.
    const rows = await this.sql.all(
      `SELECT DISTINCT a.client_user_id AS id FROM journal_payer_changes c
       JOIN journal_accounts a ON a.service = c.service AND a.payer_key = c.key
       WHERE c.service = ? AND c.at >= ? AND c.at < ? AND a.client_user_id IS NOT NULL
         AND c.accounts > COALESCE((SELECT b.accounts FROM journal_payer_changes b
           WHERE b.service = c.service AND b.key = c.key AND b.seq = c.seq - 1), 0)
       ORDER BY id`,
      [this.service, from, to],
    );
    return rows.map((row) => String(row['id']));
  }

  async changes(key: string): Promise<PayerChange[]> {
    const rows = await this.sql.all(
      'SELECT at, kyc_status, agreement_status, accounts FROM journal_payer_changes WHERE service = ? AND key = ? ORDER BY seq',
      [this.service, key],
    );
    return rows.map((row) => ({
      at: String(row['at']),
      ...(row['kyc_status'] ? { kycStatus: String(row['kyc_status']) } : {}),
      ...(row['agreement_status'] ? { agreementStatus: String(row['agreement_status']) } : {}),
      accounts: Number(row['accounts']),
    }));
  }

  async setting(name: string): Promise<string | undefined> {
    const row = await this.sql.one('SELECT value FROM journal_settings WHERE service = ? AND name = ?', [
      this.service,
      name,
    ]);
    return row === undefined ? undefined : String(row['value']);
  }

  async write(batch: readonly JournalWrite[]): Promise<void> {
    if (batch.length === 0) return;
    // The directory entries and audit lines of a batch go together, a hundred a statement: a run's rows add one or
    // two each, and on a server every statement is a round trip.
    const entries: DirectoryEntry[] = [];
    const lines: AuditLine[] = [];
    const statements: Statement[] = [];
    for (const item of batch)
      if ('directory' in item) entries.push(item.directory);
      else if ('audit' in item) lines.push(item.audit);
      else statements.push(...this.statements(item));
    await this.sql.batch([
      ...statements,
      ...directoryUpserts(this.service, entries),
      ...auditInserts(this.service, lines),
    ]);
  }

  async forget(): Promise<void> {
    await this.sql.batch(TABLES.map((table) => [`DELETE FROM ${table} WHERE service = ?`, [this.service]] as const));
  }

  /** The SQL of one write: what `write` runs, and what `store copy` puts in a transaction of its own. */
  statements(item: JournalWrite): Statement[] {
    const { service } = this;
    if ('directory' in item) return directoryUpserts(service, [item.directory]);
    if ('audit' in item) return auditInserts(service, [item.audit]);
    if ('mail' in item) {
      const { clientUserId, step, state, at } = item.mail;
      return [
        [
          'INSERT INTO payer_mails (service, client_user_id, step, state, reason, at) VALUES (?, ?, ?, ?, NULL, ?) ' +
            'ON CONFLICT (service, client_user_id, step) DO NOTHING',
          [service, clientUserId, step, state, at],
        ],
      ];
    }
    if ('signature' in item) {
      const { clientUserId, how, at } = item.signature;
      return [
        [
          'INSERT INTO payer_signatures (service, client_user_id, how, at) VALUES (?, ?, ?, ?) ' +
            'ON CONFLICT (service, client_user_id) DO NOTHING',
          [service, clientUserId, how, at],
        ],
      ];
    }
    if ('call' in item) {
      const { call: key, record } = item;
      if (record === undefined) return [['DELETE FROM journal_calls WHERE service = ? AND key = ?', [service, key]]];
      const status = record.state === 'done' ? record.status : null;
      return [
        [
          'INSERT INTO journal_calls (service, key, state, status, answer) VALUES (?, ?, ?, ?, ?) ' +
            'ON CONFLICT (service, key) DO UPDATE SET state = excluded.state, status = excluded.status, answer = excluded.answer',
          [service, item.call, record.state, status, JSON.stringify(record.answer ?? {})],
        ],
      ];
    }
    if ('payer' in item) {
      const { payer: key, record } = item;
      const change = changeOf(record);
      const at = record.checkedAt ?? record.since ?? '';
      const { kycStatus: kyc = '', agreementStatus: agreement = '', accounts } = change;
      // Each id once: one statement may not change a row twice.
      const ids = [...new Set(record.accountIds.map(([, id]) => id))];
      return [
        [UPSERT_PAYER, [service, key, ...payerValues(record)]],
        ...(ids.length === 0
          ? []
          : [
              indexAccounts(
                service,
                ids.map((id) => [id, key, item.clientUserId ?? null]),
              ),
            ]),
        [
          ADD_CHANGE,
          [
            service,
            key,
            at,
            kyc,
            agreement,
            accounts,
            service,
            key,
            service,
            key,
            kyc,
            agreement,
            accounts,
            service,
            key,
          ],
        ],
      ];
    }
    if (item.value === undefined)
      return [['DELETE FROM journal_settings WHERE service = ? AND name = ?', [service, item.setting]]];
    return [
      [
        'INSERT INTO journal_settings (service, name, value) VALUES (?, ?, ?) ' +
          'ON CONFLICT (service, name) DO UPDATE SET value = excluded.value',
        [service, item.setting, item.value],
      ],
    ];
  }
}

/**
 * The statements that write directory entries: a hundred a statement, in the order of their ids (two writers of the
 * same payers lock them in one order), the last of a payer given twice winning.
 */
export function directoryUpserts(service: string, entries: readonly DirectoryEntry[]): Statement[] {
  const byId = new Map(entries.map((entry) => [entry.clientUserId, entry]));
  const sorted = [...byId.values()].sort((a, b) => (a.clientUserId < b.clientUserId ? -1 : 1));
  const statements: Statement[] = [];
  for (let i = 0; i < sorted.length; i += ENTRIES_A_STATEMENT) {
    const some = sorted.slice(i, i + ENTRIES_A_STATEMENT);
    statements.push([
      'INSERT INTO payer_directory (service, client_user_id, first_name, last_name, email, company_name, updated_at) ' +
        `VALUES ${some.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}${UPSERT_TAIL}`,
      some.flatMap((entry) => [
        service,
        entry.clientUserId,
        entry.firstName ?? null,
        entry.lastName ?? null,
        entry.email ?? null,
        entry.companyName ?? null,
        entry.updatedAt,
      ]),
    ]);
  }
  return statements;
}

/**
 * Account ids and whose they are, into the index a webhook naming only an account finds its payer by. An id the index
 * gives another payer stays that payer's; a clientUserId is added where the index kept the id without one.
 */
export function indexAccounts(
  service: string,
  accounts: ReadonlyArray<readonly [accountId: string, payerKey: string, clientUserId: string | null]>,
): Statement {
  const rows = accounts.map(() => '(?, ?, ?, ?)').join(', ');
  return [
    `INSERT INTO journal_accounts (service, account_id, payer_key, client_user_id) VALUES ${rows} ` +
      'ON CONFLICT (service, account_id) DO UPDATE SET client_user_id = excluded.client_user_id ' +
      'WHERE journal_accounts.payer_key = excluded.payer_key AND journal_accounts.client_user_id IS NULL',
    accounts.flatMap((account) => [service, ...account]),
  ];
}

/** A payer's row as its record: the one place its columns are decoded. */
function payerOf(row: Row): PayerRecord {
  const text = (column: string) =>
    row[column] === null || row[column] === undefined ? undefined : String(row[column]);
  const record: PayerRecord = {
    agreementDone: Number(row['agreement_done']) === 1,
    accountIds: pairsOf(text('account_ids') ?? '[]'),
    accountsKnown: Number(row['accounts_known']) === 1,
  };
  const fields: Array<[keyof PayerRecord, string]> = [
    ['digest', 'digest'],
    ['fieldDigests', 'field_digests'],
    ['userId', 'user_id'],
    ['agreementUrl', 'agreement_url'],
    ['kycUrl', 'kyc_url'],
    ['kycStatus', 'kyc_status'],
    ['agreementStatus', 'agreement_status'],
    ['since', 'since'],
    ['checkedAt', 'checked_at'],
  ];
  for (const [field, column] of fields) {
    const value = text(column);
    if (value !== undefined) (record as unknown as Record<string, string>)[field] = value;
  }
  if (row['is_compliant'] !== null && row['is_compliant'] !== undefined)
    record.isCompliant = Number(row['is_compliant']) === 1;
  return record;
}

/** The record's values in the order of PAYER_COLUMNS. */
function payerValues(record: PayerRecord): Value[] {
  return [
    record.digest ?? null,
    record.fieldDigests ?? null,
    record.userId ?? null,
    record.agreementUrl ?? null,
    record.kycUrl ?? null,
    record.kycStatus ?? null,
    record.agreementStatus ?? null,
    record.isCompliant === undefined ? null : record.isCompliant ? 1 : 0,
    record.agreementDone ? 1 : 0,
    JSON.stringify(record.accountIds),
    record.accountsKnown ? 1 : 0,
    record.since ?? null,
    record.checkedAt ?? null,
  ];
}

function changeOf(record: PayerRecord): Omit<PayerChange, 'at'> {
  const agreement = record.agreementDone ? 'completed' : record.agreementStatus;
  return {
    ...(record.kycStatus === undefined ? {} : { kycStatus: record.kycStatus }),
    ...(agreement === undefined ? {} : { agreementStatus: agreement }),
    accounts: record.accountIds.length,
  };
}

/** Account key and id pairs as stored (a JSON array); none when it is not such a list. */
export function pairsOf(text: string): Array<[string, string]> {
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return [];
    return value.filter(
      (pair): pair is [string, string] =>
        Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && typeof pair[1] === 'string',
    );
  } catch {
    return [];
  }
}

/** The statements that append audit lines, in their order, a hundred a statement: also what a run's journal batch carries. */
export function auditInserts(service: string, lines: readonly AuditLine[]): Statement[] {
  const statements: Statement[] = [];
  for (let i = 0; i < lines.length; i += ENTRIES_A_STATEMENT) {
    const some = lines.slice(i, i + ENTRIES_A_STATEMENT);
    statements.push([
      'INSERT INTO audit_trail (service, at, who, address, action, subject, detail) VALUES ' +
        some.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', '),
      some.flatMap((line) => [service, line.at, line.who, line.address, line.action, line.subject, line.detail]),
    ]);
  }
  return statements;
}
