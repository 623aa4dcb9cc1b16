import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openStore } from '../../src/store/openStore.js';
import type { Store } from '../../src/store/Store.js';
import { UPLOAD_ROWS } from '../../src/web/fileFacts.js';
import { toText } from '../../src/core/html.js';
import { Mappings } from '../../src/inbox/Mappings.js';
import type { SendGate } from '../../src/web/fourEyes.js';
import { uploadResultPage } from '../../src/web/pages.js';
import { checkEnv, READER_LIMITS, type ReaderLimits, UploadReader } from '../../src/web/UploadReader.js';
import { Uploads } from '../../src/web/Uploads.js';
import { checkChildren } from '../helpers/checkChildren.js';
import { PAYER_HEADER, payersCsv } from '../helpers/runHarness.js';
import { tempDir } from '../helpers/tempDir.js';
import { type TestStore, testStore } from '../helpers/testStore.js';
import { waitFor } from '../helpers/waitFor.js';

// An uploaded file is read and checked in a process of its own (the built dist/bundle/checkChild.js), killed past its
// time or memory: the upload is then unusable, said in one sentence. The check's test hook keeps it busy as a hostile
// file would; the limits are lowered here so that no test waits 30 s.

let tmp: ReturnType<typeof tempDir>;
let backend: TestStore;
let store: Store;
beforeEach(async () => {
  tmp = tempDir();
  backend = await testStore(tmp.path('state'));
  store = await openStore({ stateDir: tmp.path('state'), databaseUrl: backend.env.PAYER_ONBOARD_DATABASE_URL });
});
afterEach(async () => {
  await store.close();
  await backend.close();
  tmp.remove();
});

const busy = (ms: number) => ({ ...process.env, PAYER_ONBOARD_TEST_CHECK_BUSY_MS: String(ms) });

function uploadsWith(limits: ReaderLimits, env: NodeJS.ProcessEnv, signal?: AbortSignal, entry?: string): Uploads {
  const web = store.web('svc');
  return new Uploads(
    tmp.path('.web/uploads'),
    tmp.path('incoming'),
    new Mappings(web),
    web,
    new UploadReader(limits, signal, env, entry),
    store.journal('svc'),
  );
}

/**
 * A check's process as a build from before the check wrote the rows' bank accounts answered: the check's counts, and
 * no word of the accounts.
 */
const OLDER_CHILD = `process.once('message', (job) => {
  const check = { format: 'csv', rows: 2, ok: 2, invalid: 0, payers: 2, withBank: 2, warnings: [], problems: [] };
  process.send({ value: job.kind === 'check' ? { check } : {} });
});
process.once('disconnect', () => process.exit(0));
`;

function accept(uploads: Uploads) {
  const { id, path } = uploads.create('payers.csv');
  const text = payersCsv(['u-1', 'u-2']);
  writeFileSync(path, text);
  return uploads.accept(id, path, text.length, {}, { cwd: tmp.dir, env: {} });
}

it('a check past its time is stopped, its process killed, and the upload is unusable in one sentence', async () => {
  const uploads = uploadsWith({ ...READER_LIMITS, timeMs: 2000 }, busy(60_000));
  const upload = await accept(uploads);
  const why =
    'payers.csv took longer than 2 seconds to check, so the tool stopped: save it again from its spreadsheet program, or split it into smaller files.';
  expect(upload.check).toMatchObject({ ok: 0, rows: 0, problems: [], unusable: why });
  expect(checkChildren(process.pid)).toEqual([]);
  // What the page says of it, and what the store keeps.
  const gate: SendGate = {
    ...{ stand: { on: false, approvers: 1 }, newAccounts: 0, needed: false, may: 'send' },
    ...{ others: [], approvers: ['shared password'] },
  };
  expect(toText(uploadResultPage(upload, 'csrf', 'http://service', gate))).toContain(
    `The tool cannot use this file: ${why}`,
  );
  expect((await uploads.get(upload.id))?.check?.unusable).toBe(why);
});

it('a check past its memory is stopped the same way', async () => {
  // Less than Node itself holds once started: the watch of its resident memory ends it.
  const upload = await accept(uploadsWith({ timeMs: 20_000, memoryMb: 20 }, busy(10_000)));
  expect(upload.check?.unusable).toBe(
    'payers.csv needed more than 20 MB of memory to check, so the tool stopped: split it into smaller files.',
  );
  expect(checkChildren(process.pid)).toEqual([]);
});

it('serve stopping ends a check in flight at once: its process killed, the upload left unchecked', async () => {
  const stop = new AbortController();
  const checking = accept(uploadsWith(READER_LIMITS, busy(60_000), stop.signal));
  await waitFor(() => checkChildren(process.pid).length === 1, 'the check to start');
  stop.abort();
  await expect(checking).rejects.toThrow('serve is stopping: the upload was not checked');
  await waitFor(() => checkChildren(process.pid).length === 0, 'the check process to end', { timeoutMs: 5000 });
});

it('within its limits, the check answers as validate does', async () => {
  const upload = await accept(uploadsWith(READER_LIMITS, process.env));
  expect(upload.check).toMatchObject({ format: 'csv', rows: 2, ok: 2, invalid: 0, payers: 2 });
  expect(upload.found).toMatchObject({ headerLine: 1, encoding: 'utf-8', delimiter: ',' });
});

it('counts the payers of a column its values name, as the check reads it (Type: individual)', async () => {
  const uploads = uploadsWith(READER_LIMITS, process.env);
  const { id, path } = uploads.create('typed.csv');
  const text = payersCsv(['t-1', 't-2']).replace('beneficiaryType', 'Type');
  writeFileSync(path, text);
  const upload = await uploads.accept(id, path, text.length, {}, { cwd: tmp.dir, env: {} });
  expect(upload.check).toMatchObject({ rows: 2, ok: 2, payers: 2, withBank: 2 });
});

it('an edited upload whose check, made again to send it, is stopped: nothing goes to incoming/', async () => {
  const check = { input: {}, context: { cwd: tmp.dir, env: {} } };
  const edited = await uploadsWith(READER_LIMITS, process.env).fix(
    await accept(uploadsWith(READER_LIMITS, process.env)),
    [{ line: 2, column: 'firstName', value: 'Ada', at: new Date().toISOString() }],
    new Map(),
    check,
  );
  // Another serve over the same store has no file of the page's making: its send checks the upload again.
  rmSync(tmp.path(`.web/uploads/${edited.id}/sent`), { recursive: true, force: true });
  const { upload: sent, sentHere } = await uploadsWith({ ...READER_LIMITS, timeMs: 1000 }, busy(60_000)).send(
    edited,
    check,
  );
  expect(sentHere).toBe(false);
  expect(sent.sentAs).toBeUndefined();
  expect(sent.check?.unusable).toContain('took longer than 1 seconds to check');
  expect(existsSync(tmp.path('incoming')) ? readdirSync(tmp.path('incoming')) : []).toEqual([]);
});

it('the bank accounts are compared with the journal after every check: as uploaded, fixed, a row left out', async () => {
  const uploads = uploadsWith(READER_LIMITS, process.env);
  const none = { rows: [], total: 0 };
  const upload = await accept(uploads);
  expect(upload.newAccounts).toEqual(none);
  const check = { input: {}, context: { cwd: tmp.dir, env: {} } };
  const at = new Date().toISOString();
  const fixed = await uploads.fix(upload, [{ line: 2, column: 'firstName', value: 'Ada', at }], new Map(), check);
  expect(fixed.newAccounts).toEqual(none);
  const leftOut = await uploads.fix(fixed, [], new Map([[3, true]]), check);
  expect(leftOut).toMatchObject({ leftOut: [3], check: { ok: 1 }, newAccounts: none });
  expect((await uploads.get(upload.id))?.newAccounts).toEqual(none);
});

it("a check's process of an older build, which writes no accounts: the upload is unusable, and says why", async () => {
  const older = tmp.write('older-checkChild.mjs', OLDER_CHILD);
  const upload = await accept(uploadsWith(READER_LIMITS, process.env, undefined, older));
  expect(upload.newAccounts).toBeUndefined();
  expect(upload.check).toMatchObject({
    ok: 0,
    unusable:
      "payers.csv could not be checked: the tool's checking program is not the version this serve runs. An operator restarts serve (from a checkout: npm run build first); then upload the file again.",
  });
});

it('a file of more rows than the page checks is refused in one sentence, read no further and never checked', async () => {
  const uploads = uploadsWith(READER_LIMITS, process.env);
  const { id, path } = uploads.create('short rows.csv');
  // 25 MB of such rows is 12 million: each refused row would cost a line in three files, past the check's time.
  const text = `${PAYER_HEADER}\n${'x\n'.repeat(UPLOAD_ROWS + 1)}`;
  writeFileSync(path, text);
  const upload = await uploads.accept(id, path, text.length, {}, { cwd: tmp.dir, env: {} });
  expect(upload.check).toMatchObject({
    rows: 0,
    unusable:
      'short rows.csv has more than 100,000 rows, the most this page checks at once: split it into files of 100,000 rows or fewer and upload each.',
  });
  expect(existsSync(tmp.path(`.web/uploads/${id}/check`))).toBe(false);
});

it("a check's process is given none of serve's secrets: what reading a file may go by only", () => {
  const env = checkEnv({
    PATH: '/usr/bin',
    HOME: '/home/finance',
    TZ: 'Europe/Paris',
    LC_ALL: 'fr_FR.UTF-8',
    PAYER_ONBOARD_LOG_LEVEL: 'warn',
    PAYER_ONBOARD_DATABASE_URL: 'postgres://u:p@db/x',
    PAYER_ONBOARD_SMTP_URL: 'smtp://u:p@mail',
    PAYER_API_KEY: 'k',
    PAYER_WEBHOOK_SECRET: 's',
    PAYER_WEB_PASSWORD: 'p',
    AWS_SECRET_ACCESS_KEY: 'a',
  });
  expect(env).toEqual({
    PATH: '/usr/bin',
    HOME: '/home/finance',
    TZ: 'Europe/Paris',
    LC_ALL: 'fr_FR.UTF-8',
    PAYER_ONBOARD_LOG_LEVEL: 'warn',
  });
});
