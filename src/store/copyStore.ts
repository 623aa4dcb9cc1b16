import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { addsTo, mergedCall, mergedPayer } from './mergePayer.js';
import { PgStore } from './PgStore.js';
import { SqlDirectory } from './SqlDirectory.js';
import { directoryUpserts, type Executor, indexAccounts, SqlJournal, type Statement } from './SqlJournal.js';
import { STORE_FILE, SqliteStore } from './SqliteStore.js';
import type { DirectoryEntry } from './Store.js';

/** What one copy did: rows the target had not (copied), and rows it knew and learned something of (merged). */
export interface Copied {
  from: string;
  to: string;
  services: number;
  payers: { copied: number; merged: number };
  calls: { copied: number; merged: number };
  settings: number;
  events: number;
  /** Rows waiting on their payers. */
  waiting: number;
  /** The payer directory: entries the target lacked (copied) or held older (merged); links, mails and signatures it lacked. */
  directory: { copied: number; merged: number };
  links: number;
  mails: number;
  signatures: number;
}

type Row = Record<string, unknown>;

/**
 * Copies everything of the SQLite store of a state dir into a PostgreSQL database (its schema made or brought up to
 * this version first), in one transaction: a copy that fails leaves the database as it was. Where the database knows
 * a thing already, both memories are kept: a call done in either is done, a payer known to both keeps every account
 * id either knew (the rules of an old journal's import), a setting or a webhook delivery it has stays as it is. So
 * two machines' stores copied into one database lose nothing, and a copy made again changes nothing.
 */
export async function copyStore(stateDir: string, to: { url: string; given: string }): Promise<Copied> {
  if (!existsSync(join(stateDir, STORE_FILE)))
    throw new ConfigError(
      `no store to copy in ${stateDir} (no ${STORE_FILE}): give the state dir the runs used with --state-dir`,
      'E_USAGE',
    );
  const source = SqliteStore.open(stateDir);
  try {
    const target = await PgStore.open(to.url, to.given);
    try {
      const copied: Copied = {
        from: source.location,
        to: target.location,
        services: 0,
        payers: { copied: 0, merged: 0 },
        calls: { copied: 0, merged: 0 },
        settings: 0,
        events: 0,
        waiting: 0,
        directory: { copied: 0, merged: 0 },
        links: 0,
        mails: 0,
        signatures: 0,
      };
      const statements: Statement[] = [];
      for (const row of await source.sql.all(SERVICES, [])) {
        const tables = { from: source.sql, to: target.sql, service: String(row['service']) };
        statements.push(...(await calls(tables, copied)), ...(await payers(tables, copied)));
        statements.push(...(await settingsAndEvents(tables, copied)), ...(await waiting(tables, copied)));
        statements.push(...(await directory(tables, copied)));
        copied.services++;
      }
      if (statements.length > 0) await target.sql.batch(statements);
      return copied;
    } finally {
      await target.close();
    }
  } finally {
    source.close();
  }
}

/** Every service and key the store holds anything of (`status` may have imported an old journal it never opened). */
const SERVICES = `
  SELECT service FROM journal_settings UNION SELECT service FROM journal_calls
  UNION SELECT service FROM journal_payers UNION SELECT service FROM serve_events
  UNION SELECT service FROM web_mappings UNION SELECT service FROM waiting_files
  UNION SELECT service FROM payer_directory UNION SELECT service FROM payer_links
  UNION SELECT service FROM payer_mails UNION SELECT service FROM payer_signatures ORDER BY service`;

/** One service's tables on both sides. */
interface Tables {
  from: Executor;
  to: Executor;
  service: string;
}

/**
 * A call the target lacks; of one both know, what the target keeps (mergedCall, as an old journal's import does): a
 * payer's list of creates gets every create either sent, and a create the target holds in doubt stays so (a read
 * settles it, never an older answer).
 */
async function calls({ from, to, service }: Tables, copied: Copied): Promise<Statement[]> {
  const theirs = new SqlJournal(to, service);
  const statements: Statement[] = [];
  for (const row of await from.all('SELECT key FROM journal_calls WHERE service = ?', [service])) {
    const key = String(row['key']);
    const known = await theirs.call(key);
    const record = mergedCall(known, await new SqlJournal(from, service).call(key));
    if (record === undefined) continue;
    if (known === undefined) copied.calls.copied++;
    else copied.calls.merged++;
    statements.push(...theirs.statements({ call: key, record }));
  }
  return statements;
}

/** A payer the target lacks, with its history; one it knows, merged where the source knows more. */
async function payers({ from, to, service }: Tables, copied: Copied): Promise<Statement[]> {
  const ours = new SqlJournal(from, service);
  const theirs = new SqlJournal(to, service);
  const known = await theirs.payers();
  const history = new Map<string, Row[]>();
  for (const change of await from.all('SELECT * FROM journal_payer_changes WHERE service = ?', [service])) {
    const changes = history.get(String(change['key']));
    if (changes === undefined) history.set(String(change['key']), [change]);
    else changes.push(change);
  }
  const statements: Statement[] = [];
  for (const row of await from.all('SELECT * FROM journal_payers WHERE service = ?', [service])) {
    const key = String(row['key']);
    const their = known.get(key);
    if (their === undefined) {
      statements.push(insert('journal_payers', row));
      for (const change of history.get(key) ?? []) statements.push(insert('journal_payer_changes', change));
      copied.payers.copied++;
      continue;
    }
    const our = (await ours.payer(key))!;
    if (!addsTo(their, our)) continue;
    statements.push(...theirs.statements({ payer: key, record: mergedPayer(their, our) }));
    copied.payers.merged++;
  }
  // Their accounts' index, with the clientUserIds the source kept beside the ids (a merged payer's statements index
  // its ids without them).
  for (const row of await from.all('SELECT * FROM journal_accounts WHERE service = ?', [service])) {
    const clientUserId = row['client_user_id'] === null ? null : String(row['client_user_id']);
    statements.push(indexAccounts(service, [[String(row['account_id']), String(row['payer_key']), clientUserId]]));
  }
  return statements;
}

/**
 * The settings the target lacks, but for `closed`: it says that the last run closed the source's journal, which the
 * target's own runs cannot say of what came from elsewhere; without it, a run reads again what it is not sure of.
 */
async function settingsAndEvents({ from, to, service }: Tables, copied: Copied): Promise<Statement[]> {
  const statements: Statement[] = [];
  const names = await keyed(to, 'SELECT name FROM journal_settings WHERE service = ?', service);
  for (const row of await from.all('SELECT * FROM journal_settings WHERE service = ?', [service])) {
    if (row['name'] === 'closed' || names.has(String(row['name']))) continue;
    statements.push(insert('journal_settings', row));
    copied.settings++;
  }
  const ids = await keyed(to, 'SELECT id FROM serve_events WHERE service = ?', service);
  for (const row of await from.all('SELECT * FROM serve_events WHERE service = ?', [service])) {
    if (ids.has(String(row['id']))) continue;
    statements.push(insert('serve_events', row));
    copied.events++;
  }
  // The web page's saved column mappings too (its sessions are not: each serve's sign-ins are its own).
  const headers = await keyed(to, 'SELECT header_key FROM web_mappings WHERE service = ?', service);
  for (const row of await from.all('SELECT * FROM web_mappings WHERE service = ?', [service]))
    if (!headers.has(String(row['header_key']))) statements.push(insert('web_mappings', row));
  return statements;
}

/**
 * The files of rows waiting the target lacks, with their rows: a file kept by both (the same copy made again) stays
 * as the target has it, since its rows may have moved on there.
 */
async function waiting({ from, to, service }: Tables, copied: Copied): Promise<Statement[]> {
  const statements: Statement[] = [];
  const ids = await keyed(to, 'SELECT id FROM waiting_files WHERE service = ?', service);
  for (const file of await from.all('SELECT * FROM waiting_files WHERE service = ?', [service])) {
    if (ids.has(String(file['id']))) continue;
    statements.push(insert('waiting_files', file));
    for (const row of await from.all('SELECT * FROM waiting_rows WHERE service = ? AND file_id = ?', [
      service,
      file['id'] as string,
    ])) {
      statements.push(insert('waiting_rows', row));
      copied.waiting++;
    }
  }
  return statements;
}

/**
 * The payer directory: an entry the target lacks, or holds with values older than the source's (the newer is the
 * latest a run read of the payer); the links, mail records and signatures it lacks, its own kept where both have one
 * (a mail it records as sent stays sent, and the first signature stands).
 */
async function directory({ from, to, service }: Tables, copied: Copied): Promise<Statement[]> {
  const ours = await new SqlDirectory(from, service).entries(
    (await from.all('SELECT client_user_id FROM payer_directory WHERE service = ?', [service])).map((row) =>
      String(row['client_user_id']),
    ),
  );
  const theirs = await new SqlDirectory(to, service).entries([...ours.keys()]);
  const newer = [...ours.values()].filter((entry) => {
    const their = theirs.get(entry.clientUserId);
    if (their === undefined) copied.directory.copied++;
    else if (entry.updatedAt > their.updatedAt && !sameEntry(entry, their)) copied.directory.merged++;
    else return false;
    return true;
  });
  const statements = directoryUpserts(service, newer);
  for (const [table, key, count] of [
    ['payer_links', ['token_hash'], 'links'],
    ['payer_mails', ['client_user_id', 'step'], 'mails'],
    ['payer_signatures', ['client_user_id'], 'signatures'],
  ] as const) {
    const missing = await lacked({ from, to, service }, table, key);
    statements.push(...missing.map((row) => insert(table, row)));
    copied[count] += missing.length;
  }
  return statements;
}

/** The rows of a table of the service the target lacks, a row named by the `key` columns. */
async function lacked({ from, to, service }: Tables, table: string, key: readonly string[]): Promise<Row[]> {
  const name = (row: Row) => JSON.stringify(key.map((column) => String(row[column])));
  const query = `SELECT ${key.join(', ')} FROM ${table} WHERE service = ?`;
  const known = new Set((await to.all(query, [service])).map(name));
  return (await from.all(`SELECT * FROM ${table} WHERE service = ?`, [service])).filter((row) => !known.has(name(row)));
}

function sameEntry(a: DirectoryEntry, b: DirectoryEntry): boolean {
  return (
    a.firstName === b.firstName && a.lastName === b.lastName && a.email === b.email && a.companyName === b.companyName
  );
}

/** A query's rows as their first column to their last. */
async function keyed(sql: Executor, query: string, service: string): Promise<Map<string, string>> {
  const rows = await sql.all(query, [service]);
  return new Map(rows.map((row) => [String(Object.values(row)[0]), String(Object.values(row).at(-1))]));
}

/** The row as it is; where the target has it already, nothing, or the update given. */
function insert(table: string, row: Row, update?: string): Statement {
  const columns = Object.keys(row);
  const conflict = update === undefined ? 'DO NOTHING' : `(service, key) DO UPDATE SET ${update}`;
  const sql = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ON CONFLICT ${conflict}`;
  return [sql, columns.map((column) => row[column] as string | number | null)];
}
