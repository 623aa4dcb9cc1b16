import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { STORE_FILE } from '../../src/store/SqliteStore.js';

/** The files of a store on disk: the database and its write-ahead log (the shared-memory index is rebuilt from it). */
const FILES = [STORE_FILE, `${STORE_FILE}-wal`];

/**
 * What is on disk of the store of `stateDir` right now: what a process killed at this moment leaves behind, since
 * every transaction it committed is in the database or its log. Taken between two turns of the event loop, when no
 * transaction is open. `restore()` puts it back in place of whatever came after, as if the process had died then.
 */
export function storeImage(stateDir: string): { restore(): void } {
  const copy = mkdtempSync(join(tmpdir(), 'payer-onboard-image-'));
  for (const name of FILES) if (existsSync(join(stateDir, name))) copyFileSync(join(stateDir, name), join(copy, name));
  return {
    restore() {
      for (const name of [...FILES, `${STORE_FILE}-shm`]) rmSync(join(stateDir, name), { force: true });
      for (const name of FILES) if (existsSync(join(copy, name))) copyFileSync(join(copy, name), join(stateDir, name));
      rmSync(copy, { recursive: true, force: true });
    },
  };
}

/** What the calls in doubt in the store of `stateDir` noted when they went out (every service's, oldest first). */
export async function callsInDoubt(stateDir: string): Promise<Array<Record<string, string>>> {
  const db = new DatabaseSync(join(stateDir, STORE_FILE), { readOnly: true });
  try {
    const rows = db.prepare("SELECT answer FROM journal_calls WHERE state = 'sent' ORDER BY rowid").all();
    return rows.map((row) => JSON.parse(String(row['answer'])) as Record<string, string>);
  } finally {
    db.close();
  }
}

/** The services and keys with a journal in the store of `stateDir`: none where there is no store. */
export function journalsIn(stateDir: string): string[] {
  const file = join(stateDir, STORE_FILE);
  if (!existsSync(file)) return [];
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db.prepare("SELECT service FROM journal_settings WHERE name = 'opened' ORDER BY service").all();
    return rows.map((row) => String(row['service']));
  } finally {
    db.close();
  }
}

/** The webhooks recorded in the store of `stateDir` (read while serve writes it), and those acted on. */
export function eventsIn(stateDir: string): { recorded: string[]; done: Set<string> } {
  const file = join(stateDir, STORE_FILE);
  if (!existsSync(file)) return { recorded: [], done: new Set() };
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db.prepare('SELECT id, done_at FROM serve_events ORDER BY received_at, id').all();
    return {
      recorded: rows.map((row) => String(row['id'])),
      done: new Set(rows.filter((row) => row['done_at'] !== null).map((row) => String(row['id']))),
    };
  } catch (error) {
    // serve has not made its tables yet; anything else is the test's to see
    if (!/no such table/.test((error as Error).message)) throw error;
    return { recorded: [], done: new Set() };
  } finally {
    db.close();
  }
}

/**
 * The rows waiting in the store of `stateDir`, by the name of the file they were kept from: how many rows each (every
 * service's); none where there is no store.
 */
export function waitingIn(stateDir: string): Record<string, number> {
  const file = join(stateDir, STORE_FILE);
  if (!existsSync(file)) return {};
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db
      .prepare(
        'SELECT f.name AS name, COUNT(*) AS n FROM waiting_rows w JOIN waiting_files f ' +
          'ON f.service = w.service AND f.id = w.file_id GROUP BY f.name ORDER BY f.name',
      )
      .all();
    return Object.fromEntries(rows.map((row) => [String(row['name']), Number(row['n'])]));
  } finally {
    db.close();
  }
}

/** An upload of the web page as the store of `stateDir` keeps it: the changes made, and whether its file is kept. */
export function uploadIn(stateDir: string, id: string): { fixes: Array<Record<string, unknown>>; kept: boolean } {
  const db = new DatabaseSync(join(stateDir, STORE_FILE), { readOnly: true });
  try {
    const row = db.prepare('SELECT fixes, content IS NOT NULL AS kept FROM web_uploads WHERE id = ?').get(id);
    if (row === undefined) throw new Error(`no upload ${id} in the store`);
    return { fixes: JSON.parse(String(row['fixes'])), kept: Number(row['kept']) === 1 };
  } finally {
    db.close();
  }
}

/** The audit trail in the store of `stateDir` (read while serve writes it), oldest first, its details parsed. */
export function auditIn(
  stateDir: string,
): Array<{ who: string; action: string; subject: string; detail: Record<string, unknown> }> {
  const db = new DatabaseSync(join(stateDir, STORE_FILE), { readOnly: true });
  try {
    const rows = db.prepare('SELECT who, action, subject, detail FROM audit_trail ORDER BY seq').all();
    return rows.map((row) => ({
      who: String(row['who']),
      action: String(row['action']),
      subject: String(row['subject']),
      detail: JSON.parse(String(row['detail'])) as Record<string, unknown>,
    }));
  } finally {
    db.close();
  }
}
