import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { PAYER_HEADER, payerRow } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { waitFor } from '../helpers/waitFor.js';

// The Map step's date format and the mapping saved for a file's columns, over plain HTTP against serve and the
// sandbox: dates that read either way are asked about, nothing applied until chosen; the page says what to choose, in
// its own words; and the inbox runs a file of the same columns, in another order, with the mapping and date format.
const PASSWORD = 'correct horse battery staple';
let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const form = (fields: Record<string, string>) => ({
  body: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

async function signedIn(url: string): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${url}/login`, { method: 'POST', redirect: 'manual', ...form({ password: PASSWORD }) });
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const page = await (await fetch(`${url}/`, { headers: { cookie } })).text();
  return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(page)![1]! };
}

// The team's own name for the phone column, which the tool cannot know by itself; dates 5 June or 6 May.
const COLUMNS = PAYER_HEADER.split(',').map((column) => (column === 'phone' ? 'Reach at' : column));
const PHONE = COLUMNS.indexOf('Reach at');

/** The rows under COLUMNS in the order `columns` gives, each born on 05/06/1980. */
function csv(ids: string[], columns = COLUMNS): string {
  const rows = ids.map((id) => {
    const cells = payerRow(id, { dateOfBirth: '05/06/1980' }).split(',');
    return columns.map((column) => cells[COLUMNS.indexOf(column)]).join(',');
  });
  return `${columns.join(',')}\n${rows.join('\n')}\n`;
}

/** The text of a page without its markup, as a person reads it. */
const words = (page: string) =>
  page
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ');

describe('the date format and the saved mapping', () => {
  it('asks where the dates read either way, says so in the page’s words; the inbox runs the same columns in another order with both', async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD }, sandbox: { keepRequests: true } });
    const url = h.serve.url;
    const { cookie, csrf } = await signedIn(url);
    const file = new FormData();
    file.append('file', new Blob([csv(['d-1', 'd-2', 'd-3'])]), 'payers.csv');
    const taken = await fetch(`${url}/uploads?_csrf=${csrf}`, {
      method: 'POST',
      body: file,
      headers: { cookie },
      redirect: 'manual',
    });
    const at = taken.headers.get('location')!;
    const html = async () => (await fetch(`${url}${at}`, { headers: { cookie } })).text();
    const page = async () => words(await html());

    // The phone is missing: the page says to choose the column's field, not which flag a terminal would take.
    const first = await page();
    expect(first).toContain(
      'missing required column phone, and a column not understood: "Reach at": where one of them holds a missing field, choose the field for that column',
    );
    // The dates could be 5 June or 6 May: asked, with nothing preselected, and nothing applied.
    expect(first).toContain(
      'The dates could be written day first or month first: 05/06/1980 is 5 June 1980 day first, 6 May 1980 month first. Choose how they are written;',
    );
    expect(await html()).toMatch(/<option value="" disabled selected>Choose how the dates are written/);
    expect(first).not.toMatch(/--map|--date-format/);

    const map = (fields: Record<string, string>) =>
      fetch(`${url}${at}/mapping`, {
        method: 'POST',
        ...form({ _csrf: csrf, [`col:${PHONE}`]: 'phone', ...fields }),
        headers: { ...form({}).headers, cookie },
        redirect: 'manual',
      });
    expect((await map({})).status).toBe(303);
    const mapped = await page();
    expect(await html()).toMatch(/data-fact="invalid">3</);
    // Beside each date, what is wrong and what to do here: no mask of the value the cell shows.
    expect(mapped).toContain('must be YYYY-MM-DD: written day or month first: choose the date format above');
    expect(mapped).not.toMatch(/99\/99\/9999|masked as personal data|--date-format/);

    expect((await map({ dateFormat: 'DD/MM/YYYY' })).status).toBe(303);
    const chosen = await page();
    expect(await html()).toMatch(/data-fact="ok">3</);
    expect(chosen).toContain('Dates are read as DD/MM/YYYY, as chosen.');

    // A file of the same columns in another order, dropped into the inbox: run with the mapping and date format saved.
    const reordered = [...COLUMNS].reverse();
    h.inbox.drop('tuesday.csv', csv(['t-1', 't-2'], reordered));
    await waitFor(() => h!.inbox.list('done').includes('tuesday.csv'), 'the inbox to run the file');
    const sent = h.sandbox.payer('t-1')?.request as { dateOfBirth?: string; phone?: string };
    expect(sent).toMatchObject({ dateOfBirth: '1980-06-05', phone: '+12175550100' });
    expect(h.sandbox.stats().payersCreated).toBe(2);
    expect(readFileSync(h.inbox.path('done', 'tuesday.csv'), 'utf8')).toBe(csv(['t-1', 't-2'], reordered));
  });

  it('dates that read either way in the first rows, and only day first in a later one: guessed from the rows refused, and said', async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD } });
    const url = h.serve.url;
    const { cookie, csrf } = await signedIn(url);
    const ids = Array.from({ length: 60 }, (_, i) => `e-${i + 1}`);
    const rows = ids.map((id, i) => payerRow(id, { dateOfBirth: i === 55 ? '25/12/1990' : '05/06/1980' }));
    const file = new FormData();
    file.append('file', new Blob([`${PAYER_HEADER}\n${rows.join('\n')}\n`]), 'sixty.csv');
    const taken = await fetch(`${url}/uploads?_csrf=${csrf}`, {
      method: 'POST',
      body: file,
      headers: { cookie },
      redirect: 'manual',
    });
    const page = await (await fetch(`${url}${taken.headers.get('location')!}`, { headers: { cookie } })).text();
    expect(page).toMatch(/data-fact="ok">60</);
    expect(words(page)).toContain(
      'The dates are written day first: some of them can be read only that way, so they are read as DD/MM/YYYY.',
    );
  });
});
