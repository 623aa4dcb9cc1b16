import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Mappings } from '../../src/inbox/Mappings.js';
import { SPLIT_NAME } from '../../src/rows/columns.js';
import { runInbox } from '../../src/inbox/runInbox.js';
import { journalName } from '../../src/journal/stateDir.js';
import { openStore } from '../../src/store/openStore.js';
import { inboxAt } from '../helpers/inboxFixtures.js';
import { API_KEY, harness, memoryStream, PAYER_HEADER, payerRow } from '../helpers/runHarness.js';

// The inbox and the web page share a store: a file dropped in with the columns a mapping was saved for on the page runs
// with it; and what the inbox says of a file or a row is what a person can do without a terminal.
let h: Awaited<ReturnType<typeof harness>>;
let inbox: ReturnType<typeof inboxAt>;
beforeEach(async () => {
  h = await harness({ keepRequests: true });
  inbox = inboxAt(h.tmp.path('inbox'));
});
afterEach(async () => {
  await h.close();
});

async function once() {
  const err = memoryStream();
  const result = await runInbox(
    { dir: inbox.root, settle: 1, run: { baseUrl: h.sandbox.url, rate: 0, stateDir: h.tmp.path('state') } },
    { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY, ...h.store.env }, stderr: err.stream },
  );
  return { ...result, stderr: err.text() };
}

// The team's names for two columns: one the tool cannot know by itself, and the date of birth in its own words.
const COLUMNS = PAYER_HEADER.split(',').map((c) => ({ phone: 'Reach at', dateOfBirth: 'Born' })[c] ?? c);

/** Payer rows under COLUMNS in the order `columns` gives, born on `born`. */
function csv(ids: string[], born: string, columns = COLUMNS): string {
  const rows = ids.map((id) => {
    const cells = payerRow(id, { dateOfBirth: born }).split(',');
    return columns.map((column) => cells[COLUMNS.indexOf(column)]).join(',');
  });
  return `${columns.join(',')}\n${rows.join('\n')}\n`;
}

describe('inbox: the web page’s mappings and words', () => {
  it('a file of the columns a mapping was saved for on the page, in another order, runs with its fields and date format', async () => {
    const store = await openStore({
      stateDir: h.tmp.path('state'),
      databaseUrl: h.store.env.PAYER_ONBOARD_DATABASE_URL,
    });
    try {
      const web = store.web(journalName(h.sandbox.url, API_KEY));
      const saved = { columns: { 'Reach at': 'phone', Born: 'dateOfBirth' }, dateFormat: 'DD/MM/YYYY' };
      await new Mappings(web).save(COLUMNS, saved);
    } finally {
      await store.close();
    }
    const shuffled = [...COLUMNS.slice(10), ...COLUMNS.slice(0, 10)];
    inbox.drop('monday.csv', csv(['m-1', 'm-2'], '05/06/1980', shuffled));
    const r = await once();
    expect(r.files.map((f) => [f.file, f.folder, f.exitCode])).toEqual([['monday.csv', 'done', 0]]);
    expect(h.sandbox.payer('m-1')?.request).toMatchObject({ dateOfBirth: '1980-06-05', phone: '+12175550100' });
    expect(h.sandbox.stats().payersCreated).toBe(2);
  });

  it('a file with a column of whole names the page was told to split runs with each name split', async () => {
    const columns = PAYER_HEADER.replace('firstName,lastName', 'Full Name');
    const store = await openStore({
      stateDir: h.tmp.path('state'),
      databaseUrl: h.store.env.PAYER_ONBOARD_DATABASE_URL,
    });
    try {
      const web = store.web(journalName(h.sandbox.url, API_KEY));
      await new Mappings(web).save(columns.split(','), { columns: { 'Full Name': SPLIT_NAME } });
    } finally {
      await store.close();
    }
    const row = payerRow('f-1').replace(',Ada,Lovelace,', ',Mary Ann Smith,');
    inbox.drop('friday.csv', `${columns}\n${row}\n`);
    const r = await once();
    expect(r.files.map((f) => [f.file, f.folder, f.exitCode])).toEqual([['friday.csv', 'done', 0]]);
    expect(h.sandbox.payer('f-1')?.request).toMatchObject({ firstName: 'Mary Ann', lastName: 'Smith' });
  });

  it('a file whose columns the tool cannot read, or whose dates it cannot: the spreadsheet to change, or the page, never a flag', async () => {
    inbox.drop('tuesday.csv', csv(['t-1'], '1985-12-10'));
    const dayFirst = ['w-1', 'w-2'].map((id) => payerRow(id, { dateOfBirth: '14/07/1982' }));
    inbox.drop('wednesday.csv', `${PAYER_HEADER}\n${dayFirst.join('\n')}\n`, 30);
    const r = await once();
    expect(r.files.map((f) => [f.file, f.folder])).toEqual([
      ['tuesday.csv', 'failed'],
      ['wednesday.csv', 'failed'],
    ]);
    const note = readFileSync(inbox.path('failed', 'tuesday.csv.error.txt'), 'utf8');
    expect(note).toContain(
      'missing required columns dateOfBirth, phone, and columns not understood: "Born", "Reach at": where one of them holds a missing field, rename it in the spreadsheet to the field it holds, or upload the file on the web page and choose its field there',
    );
    expect(note).not.toMatch(/--map/);
    // Its rows' problems, in results and the failed file, in the same words.
    const failed = readFileSync(inbox.path(r.files[1]!.results!, 'failed-wednesday.csv'), 'utf8');
    expect(failed).toContain(
      'dateOfBirth: must be YYYY-MM-DD, got ""99/99/9999"" (masked as personal data: digits shown as 9, letters as a): written day first: write it as YYYY-MM-DD in the spreadsheet, or upload the file on the web page and choose its date format there',
    );
    expect(failed).not.toMatch(/--date-format/);
  });
});
