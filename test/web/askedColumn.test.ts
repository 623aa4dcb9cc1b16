import { writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SPLIT_NAME } from '../../src/rows/columns.js';
import { Mappings } from '../../src/inbox/Mappings.js';
import { openStore } from '../../src/store/openStore.js';
import type { Store } from '../../src/store/Store.js';
import { mappingView } from '../../src/web/mapSection.js';
import { READER_LIMITS, UploadReader } from '../../src/web/UploadReader.js';
import { Uploads } from '../../src/web/Uploads.js';
import { readTable } from '../../src/web/uploadTable.js';
import { PAYER_HEADER, payerRow, payersCsv } from '../helpers/runHarness.js';
import { tempDir } from '../helpers/tempDir.js';
import { type TestStore, testStore } from '../helpers/testStore.js';

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

// A column whose name could be two fields is asked about on the page as on the command line, never guessed: the
// check says to choose (in the page's words), the Map step offers the pick with nothing chosen, and once chosen the
// file is read.
it('a column that could be two fields: the page asks, with nothing chosen, and reads the file once it is chosen', async () => {
  const web = store.web('svc');
  const reader = new UploadReader(READER_LIMITS);
  const uploads = new Uploads(tmp.path('.web/uploads'), tmp.path('incoming'), new Mappings(web), web, reader);
  const { id, path } = uploads.create('vendors.csv');
  const text = payersCsv(['v-1', 'v-2']).replace('lastName', 'Vendor name');
  writeFileSync(path, text);
  const context = { cwd: tmp.dir, env: {} };
  const upload = await uploads.accept(id, path, text.length, {}, context);
  expect(upload.check?.unusable).toBe(
    'vendors.csv:1: column "Vendor name" could be Company\'s name or Last name, and the tool does not guess: choose the field for this column',
  );
  const table = (await readTable(path))!;
  expect(mappingView(table, {}).columns.find((c) => c.column === 'Vendor name')).toEqual({
    index: 3,
    column: 'Vendor name',
    pick: true,
    could: ['companyName', 'lastName'],
    // It could be a person's whole name too: what a split would read, one word here.
    split: [
      { whole: 'Lovelace', first: 'Lovelace', last: '' },
      { whole: 'Lovelace', first: 'Lovelace', last: '' },
    ],
  });
  const mapped = await uploads.map(
    upload,
    table,
    { mapping: { 'Vendor name': 'lastName' }, dateFormat: undefined },
    { input: {}, context },
  );
  expect(mapped.check).toMatchObject({ rows: 2, ok: 2, payers: 2 });
  expect(mapped.check?.unusable).toBeUndefined();
});

it('a column of whole names split on the page: previewed first, then sent as first and last name, and saved so', async () => {
  const web = store.web('svc');
  const mappings = new Mappings(web);
  const reader = new UploadReader(READER_LIMITS);
  const uploads = new Uploads(tmp.path('.web/uploads'), tmp.path('incoming'), mappings, web, reader);
  const { id, path } = uploads.create('vendors.csv');
  const whole = (id: string) => payerRow(id).replace(',Ada,Lovelace,', ',Ada Lovelace,');
  const text = `${PAYER_HEADER.replace('firstName,lastName', 'Full Name')}\n${whole('v-1')}\n${whole('v-2')}\n`;
  writeFileSync(path, text);
  const context = { cwd: tmp.dir, env: {} };
  const upload = await uploads.accept(id, path, text.length, {}, context);
  expect(upload.check?.unusable).toContain(`column "Full Name" could be Company's name or Last name`);
  const table = (await readTable(path))!;
  const view = mappingView(table, {}).columns.find((c) => c.column === 'Full Name');
  expect(view?.split?.[0]).toEqual({ whole: 'Ada Lovelace', first: 'Ada', last: 'Lovelace' });

  const chosen = { mapping: { 'Full Name': SPLIT_NAME }, dateFormat: undefined };
  const mapped = await uploads.map(upload, table, chosen, { input: {}, context });
  expect(mapped.check).toMatchObject({ rows: 2, ok: 2, payers: 2 });
  const sent = readFileSync(tmp.path(`.web/uploads/${id}/sent/vendors.csv`), 'utf8').split('\n');
  expect(sent[0]).toMatch(/^clientUserId,email,firstName,.*,lastName$/);
  expect(sent[1]).toMatch(/^v-1,v-1@example.com,Ada,.*,Lovelace$/);
  // Saved for the next file with these columns: the page's, and the inbox's.
  expect((await mappings.get(table.header))?.columns).toEqual({ 'Full Name': SPLIT_NAME });
});
