import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { payersCsv } from '../helpers/runHarness.js';
import { browserSuite, CHROMIUM, PASSWORD, shot, useBrowser } from '../helpers/browser.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { uploadIn } from '../helpers/storeOnDisk.js';
import { waitFor } from '../helpers/waitFor.js';
import { type TypedCell, writeWithOpenpyxl } from '../helpers/xlsxProducers.js';

// The upload's Map and Fix steps in a real headless browser against `serve` and the sandbox: a workbook the team made
// with a title row and its own column name, mapped by picking from a list, its bad cells fixed in the grid, sent, and
// run by the inbox. Skipped, saying why, where chromium or openpyxl is missing, unless .ci/run requires the browser.
const suite = browserSuite('Map and Fix', true);

const browser = useBrowser(suite.have);
const refused: string[] = [];
let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  expect(refused.splice(0)).toEqual([]);
});

async function signedIn(url: string, javaScriptEnabled = true): Promise<Page> {
  const context = await browser().newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled });
  const page = await context.newPage();
  // Nothing is loaded from anywhere but serve, and the page's script and styles break no rule of its policy.
  page.on('request', (request) =>
    refused.push(...(new URL(request.url()).hostname === '127.0.0.1' ? [] : [request.url()])),
  );
  page.on('console', (message) =>
    refused.push(...(/Content.Security.Policy/i.test(message.text()) ? [message.text()] : [])),
  );
  await page.goto(`${url}/login`);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${url}/`);
  return page;
}

async function upload(page: Page, file: string): Promise<string> {
  await page.getByLabel('Payers file').setInputFiles(file);
  await page.getByRole('button', { name: 'Check the file' }).click();
  await page.waitForURL(/\/uploads\/[\w-]{12}/);
  return new URL(page.url()).pathname.split('/')[2]!;
}

const HEADER = ['clientUserId', 'email', 'firstName', 'lastName', 'Type', 'dateOfBirth', 'addressLine1', 'city'];
const TAIL = ['state', 'postcode', 'country', 'nationality', 'phone', 'ssn', 'companyName'];

/** A payer's row under HEADER + TAIL, as a person types it: the date of birth a date cell; a business has a name. */
function payer(id: string, over: { email?: string; dob?: TypedCell } = {}): TypedCell[] {
  const dob = over.dob ?? { date: '1985-12-10' };
  const [first, type] = id.endsWith('2') ? ['Grace', 'business'] : ['Ada', 'individual'];
  return [
    id,
    over.email ?? `${id}@example.com`,
    first,
    'Lovelace',
    type,
    dob,
    '12 Analytical Way',
    'Springfield',
  ].concat(['IL', '62701', 'US', 'US', '+12175550100', '123-45-6789', type === 'business' ? 'Hopper Systems' : '']);
}

function workbook(path: string, rows: TypedCell[][]): string {
  const title: TypedCell[] = ['Payers to onboard, March'];
  return writeWithOpenpyxl(path, { sheets: [{ name: 'Payers', rows: [title, [...HEADER, ...TAIL], ...rows] }] });
}

describe.skipIf(suite.skip)(suite.title, () => {
  it('maps Type from the pick list, fixes two cells in the grid, sends; the next file with that header is mapped', async () => {
    expect(suite.have, `${CHROMIUM} and python3-openpyxl are required here`).toBe(true);
    h = await serveHarness({ serve: { webPassword: PASSWORD } });
    const page = await signedIn(h.serve.url);
    const rows = [payer('m-1'), payer('m-2'), payer('m-3', { email: 'm3 at example', dob: '31.02.1990' })];
    const id = await upload(page, workbook(h.tmp.path('march payers.xlsx'), rows));

    // No column is named beneficiaryType, but Type's values say it is: read so, and said; the pick list agrees.
    await expect
      .poll(() => page.locator('#map').textContent())
      .toContain('Read as Individual or business from its values');
    const type = page.getByLabel('Type', { exact: true });
    expect(await type.inputValue()).toBe('beneficiaryType');
    expect(await page.locator('#map tbody tr').count()).toBe(HEADER.length + TAIL.length);
    await type.selectOption('beneficiaryType');
    await shot(page, 'fix-1-map');
    await page.getByRole('button', { name: 'Save the mapping and check again' }).click();

    // Saved (for the next file of this header): the rows are read, and the two bad cells are marked with the tool's messages.
    await expect.poll(() => page.locator('[data-fact="ok"]').first().textContent()).toBe('2');
    const bad = page.locator('#fix td.bad');
    expect(await bad.count()).toBe(2);
    expect(
      await page.locator('#fix td.bad input').evaluateAll((els) => els.map((e) => e.getAttribute('name'))),
    ).toEqual(['c:5:1', 'c:5:5']);
    await shot(page, 'fix-2-grid');
    await page.getByLabel('Line 5, email').fill('m-3@example.com');
    await page.getByLabel('Line 5, email').press('Tab');
    await expect.poll(() => bad.count()).toBe(1);
    await page.getByLabel('Line 5, dateOfBirth').fill('1990-02-28');
    await page.getByLabel('Line 5, dateOfBirth').press('Tab');
    await expect.poll(() => bad.count()).toBe(0);
    await expect.poll(() => page.locator('#fix-status').textContent()).toContain('3 rows ready to send, none to fix');
    await shot(page, 'fix-3-fixed');

    await page.getByRole('button', { name: 'Send 3 rows' }).click();
    await expect.poll(() => page.locator('#status').textContent()).toContain('Sent to the inbox as march payers.xlsx');
    await waitFor(() => h!.waitingFiles() > 0, 'the inbox to run the file');
    expect(h.sandbox.stats().payersCreated).toBe(3);
    // Kept in the store for the audit: the workbook as uploaded and the changes; the copy serve worked on, 0600.
    const kept = uploadIn(h.tmp.path('state'), id);
    expect(kept.fixes.map(({ line, column, value }) => ({ line, column, value }))).toEqual([
      { line: 5, column: 'email', value: 'm-3@example.com' },
      { line: 5, column: 'dateOfBirth', value: '1990-02-28' },
    ]);
    expect(kept.kept).toBe(true);
    const folder = h.inbox.path('.web', 'uploads', id);
    expect(statSync(join(folder, 'march payers.xlsx')).mode & 0o777).toBe(0o600);
    expect(h.stderr()).not.toContain('m3 at example');

    // The next file with that header: the saved mapping is applied, and said so.
    await page.goto(`${h.serve.url}/`);
    await upload(page, workbook(h.tmp.path('april payers.xlsx'), [payer('a-1'), payer('a-2')]));
    await expect.poll(() => page.locator('#mapping-note').textContent()).toContain('Type → Individual or business');
    expect(await page.locator('[data-fact="ok"]').first().textContent()).toBe('2');
    expect(await page.getByLabel('Type', { exact: true }).inputValue()).toBe('beneficiaryType');
    await shot(page, 'fix-4-mapping-applied');
  });

  it('a German CSV in Windows-1252 with dates written day first: its columns map by themselves, its date format is guessed and said, and it is sent', async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD }, sandbox: { keepRequests: true } });
    const page = await signedIn(h.serve.url);
    const header = ['Kunden-ID', 'Vorname', 'Nachname', 'E-Mail', 'Typ', 'Geburtsdatum', 'Straße', 'Ort'];
    const tail = ['Bundesland', 'PLZ', 'Land', 'Staatsangehörigkeit', 'Telefon', 'ssn'];
    const kunde = (id: string, first: string, last: string, born: string) =>
      [id, first, last, `${id}@example.com`, 'individual', born, 'Hauptstraße 5', 'Springfield']
        .concat(['IL', '62701', 'US', 'DE', '+12175550100', '123-45-6789'])
        .join(';');
    const rows = [
      kunde('k-1', 'Jürgen', 'Müller', '14/07/1982'),
      kunde('k-2', 'Björn', 'Weiß', '03/02/1975'),
      kunde('k-3', 'Zoë', 'Schäfer', '25/12/1990'),
    ];
    // Windows-1252 writes these letters as Latin-1 does.
    const csv = Buffer.from(`${[...header, ...tail].join(';')}\r\n${rows.join('\r\n')}\r\n`, 'latin1');
    await upload(page, h.tmp.write('kunden.csv', csv));

    // 14/07/1982 can only be day first: the format is chosen, applied and said; every row is read.
    await expect
      .poll(() => page.locator('#dates-note').textContent())
      .toContain('The dates are written day first (14/07/1982 is 14 July 1982): they can be read only that way');
    expect(await page.getByLabel('How the dates are written').inputValue()).toBe('DD/MM/YYYY');
    expect(await page.locator('#facts').textContent()).toMatch(/windows-1252/i);
    expect(await page.locator('[data-fact="ok"]').first().textContent()).toBe('3');
    expect(await page.locator('#fix').count()).toBe(0);
    await shot(page, 'fix-5-date-format-guessed');

    await page.getByRole('button', { name: 'Send 3 rows' }).click();
    await expect.poll(() => page.locator('#status').textContent()).toContain('Sent to the inbox as kunden.csv');
    await waitFor(() => h!.waitingFiles() > 0, 'the inbox to run the file');
    expect(h.sandbox.stats().payersCreated).toBe(3);
    expect(h.sandbox.payer('k-1')?.request).toMatchObject({
      firstName: 'Jürgen',
      lastName: 'Müller',
      dateOfBirth: '1982-07-14',
    });
    expect(h.sandbox.payer('k-2')?.request).toMatchObject({ dateOfBirth: '1975-02-03' });
  });

  it("a newcomer's vendor workbook: its names read by themselves, Vendor name asked once, ZIP and routing numbers as number cells taken, the totals row left out, sent, the payers by name", async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD }, sandbox: { keepRequests: true } });
    const page = await signedIn(h.serve.url);
    const header = ['Vendor ID', 'Vendor name', 'First name', 'Email', 'Type', 'DOB', 'Street', 'City', 'State'];
    const tail = ['Zip', 'Country', 'Nationality', 'Phone', 'SSN', 'Bank', 'Account holder', 'Currency'];
    const vendor = (id: string, last: string, first: string): TypedCell[] => [
      ...[id, last, first, `${id.toLowerCase()}@example.com`, 'individual', { date: '1985-12-10' }, '1 Main St'],
      ...['Springfield', 'IL', 62701, 'US', 'US', '+12175550100', '123-45-6789', 'First Bank', `${first} ${last}`],
      ...['USD', '000123456789', 121000358],
    ];
    const rows: TypedCell[][] = [
      ['Vendors to pay, Q4'],
      [...header, ...tail, 'Account No', 'Routing'],
      vendor('V-100', 'Lovelace', 'Ada'),
      vendor('V-200', 'Hopper', 'Grace'),
      ['Total', ...Array<null>(17).fill(null), 2],
    ];
    await upload(page, writeWithOpenpyxl(h.tmp.path('vendors.xlsx'), { sheets: [{ name: 'Vendors', rows }] }));

    // Everything but Vendor name reads by itself; Vendor name could be a company's or a person's: asked, not guessed.
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('column "Vendor name" could be Company\'s name or Last name, and the tool does not guess');
    const asked = page.getByLabel('Vendor name', { exact: true });
    expect(await asked.inputValue()).toBe('');
    expect(await page.locator('#map').textContent()).toContain('Read as Individual or business from its values');
    await asked.selectOption('lastName');
    await page.getByRole('button', { name: 'Save the mapping and check again' }).click();

    // Read: two payers ready; the totals row is the one to fix, and is left out.
    await expect.poll(() => page.locator('[data-fact="ok"]').first().textContent()).toBe('2');
    await page.getByLabel('Leave out line 5').check();
    await expect.poll(() => page.locator('#fix-status').textContent()).toContain('2 rows ready to send, none to fix');
    await shot(page, 'fix-6-newcomer-workbook');
    await page.getByRole('button', { name: 'Send 2 rows' }).click();
    await expect.poll(() => page.locator('#status').textContent()).toContain('Sent to the inbox as vendors.xlsx');
    await waitFor(() => h!.waitingFiles() > 0, 'the inbox to run the file');
    expect(h.sandbox.payer('V-100')?.request).toMatchObject({
      firstName: 'Ada',
      lastName: 'Lovelace',
      postcode: '62701',
    });

    // The Payers page names them.
    await page.goto(`${h.serve.url}/payers`);
    await expect.poll(() => page.locator('#payers').textContent()).toContain('Grace Hopper');
    expect(await page.locator('#payers').textContent()).toContain('v-100@example.com');
  });

  it('without scripts, the grid form saves the changes and a row can be left out', async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD } });
    const page = await signedIn(h.serve.url, false);
    const csv = payersCsv(['n-1', 'n-2', 'n-3'], { 'n-2': { email: 'nope' }, 'n-3': { email: 'nada' } });
    await upload(page, h.tmp.write('payers.csv', csv));
    expect(await page.locator('#fix td.bad').count()).toBe(2);
    await page.getByLabel('Line 3, email').fill('n-2@example.com');
    await page.getByLabel('Leave out line 4').check();
    await page.getByRole('button', { name: 'Save the changes and check again' }).click();
    await expect.poll(() => page.locator('#fix td.bad').count()).toBe(0);
    expect(await page.locator('[data-fact="ok"]').first().textContent()).toBe('2');
    expect(await page.locator('[data-fact="rows"]').textContent()).toBe('2');
    expect(await page.locator('#fix tr.out').count()).toBe(1);
    await page.getByRole('button', { name: 'Send 2 rows' }).click();
    await waitFor(() => h!.waitingFiles() > 0, 'the inbox to run the file');
    expect(h.sandbox.stats().payersCreated).toBe(2);
  });
});
