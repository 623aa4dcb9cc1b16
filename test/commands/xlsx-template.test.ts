import { readFileSync, statSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../src/cli.js';
import { TEMPLATE_COLUMNS } from '../../src/rows/fields.js';
import { memoryStream } from '../helpers/runHarness.js';
import { tempDir } from '../helpers/tempDir.js';
import { day, readWorkbook } from '../helpers/xlsxFixtures.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  tmp.remove();
});

async function payerOnboard(args: string[]) {
  const out = memoryStream();
  const err = memoryStream();
  const code = await cli(args, {
    stdout: out.stream,
    stderr: err.stream,
    env: {},
    cwd: tmp.dir,
    signal: new AbortController().signal,
  });
  return { code, stdout: out.text(), stderr: err.text() };
}

describe('template --format xlsx', () => {
  it('has every column as text (dates as dates), a note on each header, drop-down lists and an example row', async () => {
    expect((await payerOnboard(['template', '--format', 'xlsx', '--out', 't.xlsx'])).code).toBe(0);
    expect(statSync(tmp.path('t.xlsx')).mode & 0o777).toBe(0o600);
    const sheet = (await readWorkbook(tmp.path('t.xlsx'))).worksheets[0]!;
    expect(sheet.getRow(1).values).toEqual([undefined, ...TEMPLATE_COLUMNS]);
    const col = (name: string) => TEMPLATE_COLUMNS.indexOf(name) + 1;
    for (const name of ['routingNumber', 'postcode', 'phone', 'accountNumber', 'sortCode', 'ssn'])
      expect(sheet.getColumn(col(name)).numFmt).toBe('@');
    expect(sheet.getColumn(col('dateOfBirth')).numFmt).toBe('yyyy-mm-dd');
    for (let i = 1; i <= TEMPLATE_COLUMNS.length; i++) expect(sheet.getRow(1).getCell(i).note).toBeTruthy();
    const validations = (sheet as unknown as { dataValidations: { model: Record<string, { formulae: string[] }> } })
      .dataValidations.model;
    const lists = Object.values(validations).map((v) => v.formulae[0]);
    expect(lists).toEqual(
      expect.arrayContaining(['"individual,business"', '"local,swift,wire"', '"checking,savings"']),
    );
    expect(sheet.getRow(2).getCell(col('routingNumber')).value).toBe('021000021');
    expect(sheet.getRow(2).getCell(col('dateOfBirth')).value).toEqual(day('1985-04-12'));
  });

  it('filled in by hand with two payers, runs clean against the sandbox', async () => {
    await payerOnboard(['template', '--format', 'xlsx', '--out', 't.xlsx']);
    const book = await readWorkbook(tmp.path('t.xlsx'));
    const sheet = book.worksheets[0]!;
    const col = (name: string) => TEMPLATE_COLUMNS.indexOf(name) + 1;
    // What a person types: a date into the date column, digits into the text columns (which keep them as text).
    const people = [
      {
        clientUserId: 'hand-1',
        email: 'rosa@example.com',
        firstName: 'Rosa',
        lastName: 'Parks',
        dateOfBirth: day('1913-02-04'),
        postcode: '01002',
        routingNumber: '011000015',
        accountNumber: '0001234',
      },
      {
        clientUserId: 'hand-2',
        email: 'alan@example.com',
        firstName: 'Alan',
        lastName: 'Turing',
        dateOfBirth: day('1912-06-23'),
        postcode: '02139',
        routingNumber: '021000021',
        accountNumber: '0005678',
        accountType: 'savings',
        rails: 'wire',
      },
    ];
    const example = sheet.getRow(2).values as unknown[];
    people.forEach((person, i) => {
      const row = sheet.getRow(2 + i);
      TEMPLATE_COLUMNS.forEach((_name, c) => {
        row.getCell(c + 1).value = (example[c + 1] ?? null) as never;
      });
      for (const [name, value] of Object.entries(person)) row.getCell(col(name)).value = value as never;
      row.getCell(col('accountName')).value = `${person.firstName} ${person.lastName}`;
      row.commit();
    });
    await book.xlsx.writeFile(tmp.path('t.xlsx'));

    const run = await payerOnboard(['run', 't.xlsx', '--sandbox', '--out', 'x', '--no-progress']);
    // A rehearsal against a sandbox that behaves like the service: registered, bank accounts waiting for KYC.
    expect(run.stderr).toContain('0 ok, 2 waiting, 0 invalid, 0 failed');
    expect(run.code).toBe(0);
    const results = parse(readFileSync(tmp.path('x/results.csv'), 'utf8'), { columns: true }) as Record<
      string,
      string
    >[];
    expect(results.map((r) => [r.clientUserId, r.outcome, r.steps])).toEqual([
      ['hand-1', 'waiting', 'compliance=ok payment-details=waiting agreement=waiting'],
      ['hand-2', 'waiting', 'compliance=ok payment-details=waiting agreement=waiting'],
    ]);
  });

  it('--format csv stays the default; .xlsx in --out picks xlsx', async () => {
    expect((await payerOnboard(['template'])).code).toBe(0);
    expect(readFileSync(tmp.path('payers-template.csv'), 'utf8').split('\n')[0]).toBe(TEMPLATE_COLUMNS.join(','));
    await payerOnboard(['template', '--out', 'mine.xlsx']);
    expect(readFileSync(tmp.path('mine.xlsx')).subarray(0, 2).toString()).toBe('PK');
  });
});
