import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { browserSuite, CHROMIUM, PASSWORD, shot, signIn, useBrowser } from '../helpers/browser.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { type TypedCell, writeWithOpenpyxl } from '../helpers/xlsxProducers.js';

// The finance team's whole way through the page, as the issue tells it: sign in; drop a workbook made with openpyxl
// (a title row, a column named `Type`); map it; fix two bad cells in the grid; send; watch the run finish; the
// sandbox approves KYC and sends its webhooks; the Payers page shows them payable without a reload; results.csv.
const suite = browserSuite('the whole way', true);

const browser = useBrowser(suite.have);
let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const HEADER = [
  'clientUserId',
  'email',
  'firstName',
  'lastName',
  'Type',
  'dateOfBirth',
  'addressLine1',
  'city',
  'state',
  'postcode',
  'country',
  'nationality',
  'phone',
  'ssn',
  'bankName',
  'accountName',
  'currency',
  'accountNumber',
  'routingNumber',
  'accountType',
  // The team collected the payers' signatures: the agreements are completed with the registration.
  'agreementCompleted',
];

function row(id: string, over: { email?: string; dob?: TypedCell; name?: [string, string] } = {}): TypedCell[] {
  return [
    id,
    over.email ?? `${id}@example.com`,
    ...(over.name ?? ['Ada', 'Lovelace']),
    'individual',
    over.dob ?? { date: '1985-12-10' },
    '12 Analytical Way',
    'Springfield',
    'IL',
    '62701',
    'US',
    'US',
    '+12175550100',
    '123-45-6789',
    'First Bank',
    'Ada Lovelace',
    'USD',
    '000123456789',
    '021000021',
    'checking',
    'yes',
  ];
}

describe.skipIf(suite.skip)(suite.title, () => {
  it('workbook in, mapped, fixed, sent, run, approved, payable: all seen on the page', async () => {
    expect(suite.have, `${CHROMIUM} and python3-openpyxl are required here`).toBe(true);
    h = await serveHarness({ serve: { webPassword: PASSWORD }, sandbox: { accountApproveMs: 200 } });
    const ids = ['j-1', 'j-2', 'j-3'];
    const file = writeWithOpenpyxl(h.tmp.path('june payers.xlsx'), {
      sheets: [
        {
          name: 'Payers',
          rows: [
            ['Payers to onboard, June'],
            HEADER,
            row('j-1'),
            row('j-2', { email: 'j2 at example', name: ['Grace', 'Hopper'] }),
            row('j-3', { dob: '31.02.1990', name: ['Katherine', 'Johnson'] }),
          ],
        },
      ],
    });
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page, h.serve.url);

    await page.getByLabel('Payers file').setInputFiles(file);
    await page.getByRole('button', { name: 'Check the file' }).click();
    await page.waitForURL(/\/uploads\/[\w-]{12}/);
    // What the CLI finds in the file, shown at once: the sheet, and the header below the title row.
    const facts = await page.locator('#facts').textContent();
    expect(facts).toMatch(/Sheet\s*Payers/);
    expect(facts).toMatch(/Header row\s*line 2 \(the lines above it are skipped\)/);
    await page.getByLabel('Type', { exact: true }).selectOption('beneficiaryType');
    await page.getByRole('button', { name: 'Save the mapping and check again' }).click();
    await expect.poll(() => page.locator('#fix td.bad').count()).toBe(2);
    await page.getByLabel('Line 4, email').fill('j-2@example.com');
    await page.getByLabel('Line 4, email').press('Tab');
    await page.getByLabel('Line 5, dateOfBirth').fill('1990-02-28');
    await page.getByLabel('Line 5, dateOfBirth').press('Tab');
    await expect.poll(() => page.locator('#fix td.bad').count()).toBe(0);

    await page.getByRole('button', { name: 'Send 3 rows' }).click();
    await page.getByRole('link', { name: 'Follow its run, then download its results' }).click();
    await page.locator('#finished').waitFor({ timeout: 30_000 });
    await shot(page, 'journey-1-run');
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'results.csv' }).click();
    const results = parse(readFileSync((await (await download).path())!), { columns: true }) as Array<
      Record<string, string>
    >;
    expect(results.map((r) => [r.clientUserId, r.outcome])).toEqual(ids.map((id) => [id, 'waiting']));

    await page.getByRole('link', { name: 'See where each payer stands' }).click();
    await expect.poll(() => page.locator('#counts').textContent()).toContain('KYC pending: 3');
    expect(await page.getByRole('button', { name: 'Copy KYC link for Ada Lovelace' }).count()).toBe(1);
    // Found by a name, posted: the search stays out of the page's address.
    await page.getByLabel('Find a payer by name, e-mail, company or id').fill('hopper');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await expect.poll(() => page.locator('#payers tbody tr').count()).toBe(1);
    expect(await page.locator('#payers tbody td.who').textContent()).toBe('Grace Hopperj-2@example.comj-2');
    expect(page.url()).toBe(`${h.serve.url}/payers`);
    await page.getByRole('link', { name: 'Payers', exact: true }).click();
    for (const id of ids) h.sandbox.setKyc(id, 'approved');
    await expect.poll(() => page.locator('#counts').textContent(), { timeout: 20_000 }).toContain('payable: 3');
    expect(page.url()).toBe(`${h.serve.url}/payers`);
    await shot(page, 'journey-2-payable');
    expect(ids.map((id) => h!.sandbox.payer(id)?.paymentDetails.length)).toEqual([1, 1, 1]);

    // One payer's page: its history as the journal saw it.
    await page.getByRole('link', { name: 'Ada Lovelace', exact: true }).click();
    await page.waitForURL(`${h.serve.url}/payers/j-1`);
    const history = await page.locator('#history tbody').textContent();
    for (const seen of ['registered with the service', 'agreement completed', 'KYC approved', 'bank account stored'])
      expect(history).toContain(seen);
    await page.getByRole('link', { name: 'All payers' }).click();
    // Filtered, and downloaded as CSV.
    await page.getByRole('link', { name: /payable: 3/ }).click();
    await expect.poll(() => page.locator('#payers tbody tr').count()).toBe(3);
    const list = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download as CSV' }).click();
    const csv = readFileSync((await (await list).path())!, 'utf8')
      .trim()
      .split('\n');
    expect(csv[0]).toBe(
      'clientUserId,userId,category,kycStatus,agreementStatus,bank,kycUrl,agreementUrl,since,checkedAt,error,name,email',
    );
    expect(
      csv
        .slice(1)
        .map((l) => l.split(',')[0])
        .sort(),
    ).toEqual(ids);
    expect(h.sandbox.stats().duplicatePaymentDetails).toBe(0);
  });
});
