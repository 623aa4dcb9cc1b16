import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PgStore } from './PgStore.js';
import { STORE_FILE, SqliteStore } from './SqliteStore.js';
import type { Store } from './Store.js';

/** Which store: PostgreSQL where a database URL is given, else SQLite in the state dir. */
export interface StoreLocation {
  stateDir: string;
  databaseUrl?: string | undefined;
}

export async function openStore(where: StoreLocation): Promise<Store> {
  return where.databaseUrl === undefined
    ? SqliteStore.open(where.stateDir)
    : PgStore.open(where.databaseUrl, 'PAYER_ONBOARD_DATABASE_URL (or the file of --database-url-file)');
}

/** Whether there may be anything to read: a server's store always, an embedded one once its file exists. */
export function storeMayHold(where: StoreLocation): boolean {
  return where.databaseUrl !== undefined || existsSync(join(where.stateDir, STORE_FILE));
}
