import { existsSync, statSync, truncateSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Journal } from '../../src/journal/Journal.js';
import { STORE_FILE, SqliteStore } from '../../src/store/SqliteStore.js';
import { tempDir } from '../helpers/tempDir.js';
import { harness, payersCsv } from '../helpers/runHarness.js';
import { crashAtCreate } from '../helpers/testStore.js';

// The embedded store's own crash safety, which replaces what the JSONL journal did by hand (a torn last line skipped):
// SQLite's log checks each transaction it replays, and drops one that was not written whole.

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

describe('the SQLite store after a crash', () => {
  it('loses only the transaction a crash tore: the store carries on from the last whole one, nothing twice', async () => {
    const crash = await crashAtCreate(h.sandbox.url);
    try {
      const baseUrl = crash.url;
      const input = h.tmp.write('payers.csv', payersCsv(['c-1', 'c-2']));
      await h.run({ inputs: [input], baseUrl });
      // The next run dies while writing the record of its create: the last transaction in the log is torn.
      const more = h.tmp.write('more.csv', payersCsv(['c-3']));
      crash.arm();
      const running = h.run({ inputs: [more], baseUrl });
      const image = await crash.imageAtCreate(h.store);
      await running;
      await image.restore();
      const wal = h.tmp.path(`state/${STORE_FILE}-wal`);
      expect(existsSync(wal) && statSync(wal).size).toBeGreaterThan(100);
      truncateSync(wal, statSync(wal).size - 100);
      const before = h.sandbox.stats().requests;

      const again = await h.run({ inputs: [input], baseUrl });
      expect(again.summary.exitCode).toBe(0);
      expect(again.results.map((r) => r.steps)).toEqual([
        'compliance=done-before payment-details=done-before agreement=done-before',
        'compliance=done-before payment-details=done-before agreement=done-before',
      ]);
      expect(h.sandbox.stats().requests).toBe(before);
      // The create whose record was torn is read back from the service, not made again.
      const rerun = await h.run({ inputs: [more], baseUrl });
      expect(rerun.results.map((r) => r.outcome)).toEqual(['ok']);
      expect(h.sandbox.stats()).toMatchObject({ paymentDetailsCreated: 3, duplicatePaymentDetails: 0 });
    } finally {
      await crash.close();
    }
  });
});

describe('the journal on SQLite, in a process that exits without closing it', () => {
  const SERVICE = 'api.example.com-0123456789ab';
  const key = (n: number) => n.toString(16).padStart(8, '0').repeat(4);
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.remove());

  it('writes the records still waiting when the process exits without closing it', async () => {
    const modules = (path: string) => pathToFileURL(fileURLToPath(new URL(`../../dist/${path}`, import.meta.url))).href;
    const script = `
      const { Journal } = await import(${JSON.stringify(modules('journal/Journal.js'))});
      const { SqliteStore } = await import(${JSON.stringify(modules('store/SqliteStore.js'))});
      const { journal } = await Journal.open(SqliteStore.open(${JSON.stringify(tmp.dir)}), ${JSON.stringify(SERVICE)});
      await journal.sent(${JSON.stringify(key(1))});
      journal.done(${JSON.stringify(key(1))}, 201, { id: 'pd-1' });
      process.exit(3);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(3);
    const { journal } = await Journal.open(SqliteStore.open(tmp.dir), SERVICE);
    expect(journal.closedCleanly).toBe(false);
    expect(await journal.get(key(1))).toEqual({ state: 'done', status: 201, answer: { id: 'pd-1' } });
    await journal.close();
  });
});
