import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/pipeline/run.js';
import { readResults } from '../helpers/runHarness.js';
import { tempDir } from '../helpers/tempDir.js';
import { PAYER_COLUMNS, payerCells, payerRows, writeWorkbook } from '../helpers/xlsxFixtures.js';

// Excel turns a ZIP code or a routing number typed into a General cell into a number, and so does a program writing
// JSON. A number whose digits are the only length its field can have for the row lost no leading zero: `validate`
// reads it as shown, with no warning. Any other number in a field of digits is refused as before.

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  tmp.remove();
});

const TEXT_FIX = 'format the column as Text and type the value again';
const GB = { country: 'GB', nationality: 'GB', postcode: 'SW1A 1AA' };
const GB_ACCOUNT = { currency: 'GBP', routingNumber: null, accountNumber: '12345678' };
const AU_ACCOUNT = { currency: 'AUD', routingNumber: null };

/** Each row's id as the row's outcome and error cell, of a `validate` of this file. */
async function validate(input: string) {
  const summary = await run({ inputs: [input], out: tmp.path('out'), command: 'validate' }, { cwd: tmp.dir });
  return readResults(summary.outputs.results).map((r) => [r.clientUserId, r.outcome, r.error]);
}

describe('validate: a number that cannot have lost a digit is read as shown', () => {
  it('an .xlsx of number cells: the only length of the field is valid with no warning; the others are refused as before', async () => {
    const over: Record<string, Record<string, unknown>> = {
      'zip-5': { postcode: 62701, routingNumber: 121000358 },
      'pin-6': { country: 'IN', nationality: 'IN', postcode: 110001 },
      'sort-6': { ...GB, ...GB_ACCOUNT, sortCode: 400515 },
      'bsb-6': { ...AU_ACCOUNT, bsbNumber: 123456 },
      'zip-4': { postcode: 2139 },
      'zip-9': { postcode: 627011234 },
      'gb-5': { ...GB, postcode: 62701 },
      account: { accountNumber: 123456789 },
      ssn: { ssn: 123456789 },
      phone: { phone: 12175550100 },
    };
    const columns = [...PAYER_COLUMNS, 'sortCode', 'bsbNumber'];
    const input = await writeWorkbook(tmp.path('payers.xlsx'), [
      { name: 'Payers', rows: payerRows(Object.keys(over), over, columns) },
    ]);

    expect(await validate(input)).toEqual([
      ['zip-5', 'ok', ''],
      ['pin-6', 'ok', ''],
      ['sort-6', 'ok', ''],
      ['bsb-6', 'ok', ''],
      [
        'zip-4',
        'invalid',
        `postcode: is a number cell of 4 digits, and a postal code in US has 5: the spreadsheet dropped a leading zero: ${TEXT_FIX}, got "2139"`,
      ],
      [
        'zip-9',
        'invalid',
        `postcode: is a number cell of 9 digits, which may have lost leading zeros: ${TEXT_FIX}, got "999999999" (masked as personal data: digits shown as 9, letters as a)`,
      ],
      [
        'gb-5',
        'invalid',
        `postcode: is a number cell of 5 digits, which may have lost leading zeros: ${TEXT_FIX}, got "62701"`,
      ],
      [
        'account',
        'invalid',
        `accountNumber: is a number cell of 9 digits, which may have lost leading zeros: ${TEXT_FIX}`,
      ],
      ['ssn', 'invalid', `ssn: is a number cell of 9 digits, which may have lost leading zeros: ${TEXT_FIX}`],
      [
        'phone',
        'invalid',
        'phone: is a number cell, which cannot keep a leading + or 0: format the column as Text and type the number with + and its country code, got "99999999999" (masked as personal data: digits shown as 9, letters as a)',
      ],
    ]);
  });

  it('a JSONL file: a number of the only length is valid with no warning, written any other way it is refused as before', async () => {
    const cells = (id: string, over: Record<string, unknown>) => {
      const { dateOfBirth: _, ...rest } = payerCells(id);
      return JSON.stringify({ ...rest, dateOfBirth: '1985-12-10', ...over });
    };
    // A postcode written as the line has it: JSON.stringify would write 62701.0 as 62701.
    const postcodeWritten = (id: string, text: string) =>
      cells(id, { postcode: 0 }).replace('"postcode":0', `"postcode":${text}`);
    const entry = { bankName: 'Bank', accountName: 'Ada', currency: 'EUR', iban: 'DE89370400440532013000' };
    const lines = [
      cells('zip-5', { postcode: 62701, routingNumber: 121000358 }),
      cells('pin-6', { country: 'IN', nationality: 'IN', postcode: 110001 }),
      cells('sort-6', { ...GB, ...GB_ACCOUNT, sortCode: 400515 }),
      cells('entry-de', {
        country: 'DE',
        nationality: 'DE',
        postcode: '10115',
        paymentDetails: { ...entry, postalCode: 10117 },
      }),
      cells('zip-4', { postcode: 2139 }),
      postcodeWritten('zip-frac', '62701.0'),
      postcodeWritten('zip-exp', '6.2701e4'),
      cells('gb-5', { ...GB, postcode: 62701 }),
      cells('account', { accountNumber: 123456789 }),
      cells('ssn', { ssn: 123456789 }),
    ];
    const input = tmp.write('payers.jsonl', `${lines.join('\n')}\n`);
    const refused = (key: string, got = '') =>
      `${key}: is a JSON number, which cannot keep leading zeros: write it as a string with all its digits ("${key}": "...")${got}`;

    expect(await validate(input)).toEqual([
      ['zip-5', 'ok', ''],
      ['pin-6', 'ok', ''],
      ['sort-6', 'ok', ''],
      ['entry-de', 'ok', ''],
      ['zip-4', 'invalid', refused('postcode', ', got "2139"')],
      ['zip-frac', 'invalid', refused('postcode', ', got "62701"')],
      ['zip-exp', 'invalid', refused('postcode', ', got "62701"')],
      ['gb-5', 'invalid', refused('postcode', ', got "62701"')],
      ['account', 'invalid', refused('accountNumber')],
      ['ssn', 'invalid', refused('ssn')],
    ]);
  });
});
