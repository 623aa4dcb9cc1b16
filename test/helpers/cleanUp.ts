// A setup file (vitest.config.ts): runs in every test file's context, so its afterAll runs after each file.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { removeTempDirs } from './tempDir.js';

/**
 * exceljs's streaming reader copies a workbook's sheets to temp files (`tmp-<pid>-<random>`, made by the `tmp`
 * package) when they come before the shared strings in the zip, and deletes each only once that sheet has been
 * read to its end, or at a normal process exit. The reader stops at the sheet it wants, and a test worker is
 * ended by a signal, not a normal exit, so here they would stay. The pid is this worker's: no other live process has it.
 */
function removeSpilledSheets(): void {
  const prefix = `tmp-${process.pid}-`;
  for (const name of readdirSync(tmpdir())) {
    if (name.startsWith(prefix)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

/**
 * A home of this test file's own: a run's default state dir and its locks live in the user's home, and no test may
 * write there. A run given no home of its own (nor XDG_STATE_HOME in its env) goes by HOME; spawnBin hands it on.
 */
const home = mkdtempSync(join(tmpdir(), 'payer-onboard-home-'));
process.env.HOME = home;
delete process.env.XDG_STATE_HOME;

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  removeTempDirs();
  removeSpilledSheets();
});
