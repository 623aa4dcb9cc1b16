import { basename } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { harness, PAYER_HEADER, payerRow } from '../helpers/runHarness.js';
import { payerRows, writeWorkbook } from '../helpers/xlsxFixtures.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

describe('an input is read as what its bytes are, whatever its name says', () => {
  it('a workbook named .csv is read as the workbook, with a warning; its failed rows go to a .xlsx', async () => {
    const path = await writeWorkbook(h.tmp.path('payers.csv'), [
      { name: 'Payers', rows: payerRows(['x-1', 'x-2'], { 'x-2': { email: 'nope' } }) },
    ]);
    const { summary, stderr, results } = await h.run({ inputs: [path] });
    // No agreementCompleted column: the payer signs it on their page.
    expect(results.map((r) => [r.source, r.clientUserId, r.outcome])).toEqual([
      ['payers.csv', 'x-1', 'waiting'],
      ['payers.csv', 'x-2', 'invalid'],
    ]);
    expect(summary.warnings).toEqual([
      'payers.csv: is an .xlsx workbook, not CSV as its name says; read as what it is',
    ]);
    expect(stderr).not.toContain('PK\u0003\u0004');
    expect(basename(summary.outputs.failed[0]!)).toBe('failed-payers.xlsx');
  });

  it('a CSV named .xlsx is read as CSV, with a warning', async () => {
    const path = h.tmp.write('payers.xlsx', `${PAYER_HEADER}\n${payerRow('c-1')}\n`);
    const { summary } = await h.run({ inputs: [path] });
    expect(summary.rows.ok).toBe(1);
    expect(summary.inputs[0]).toMatchObject({ source: 'payers.xlsx', format: 'csv' });
    expect(summary.warnings).toEqual([
      'payers.xlsx: is CSV text, not an .xlsx workbook as its name says; read as what it is',
    ]);
  });

  it.each([
    [
      'an old .xls (OLE2) named .csv',
      'old.csv',
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]),
      'old.csv: is an old Excel .xls workbook or a password-protected one: save it as .xlsx without a password, or as "CSV UTF-8"',
    ],
    [
      'a password-protected workbook (also OLE2)',
      'locked.xlsx',
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]),
      'locked.xlsx: is an old Excel .xls workbook or a password-protected one: save it as .xlsx without a password, or as "CSV UTF-8"',
    ],
    [
      'a PDF',
      'payers.csv',
      Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj', 'latin1'),
      'payers.csv: is a PDF, not a spreadsheet: export the payers from where they were made as .xlsx or "CSV UTF-8"',
    ],
    [
      'UTF-16 without a byte order mark',
      'unicode.txt',
      Buffer.from(`${PAYER_HEADER}\r\n`, 'utf16le'),
      'unicode.txt: is UTF-16 text without a byte order mark: save it as "CSV UTF-8" (or Excel\'s "Unicode text")',
    ],
    [
      'other binary data',
      'image.csv',
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x01]),
      'image.csv: is not a spreadsheet or text file (it holds binary data): save the payers as .xlsx or "CSV UTF-8"',
    ],
  ])('%s: exit 2 with a message, nothing of it echoed', async (_what, name, bytes, message) => {
    const error = await h.run({ inputs: [h.tmp.write(name, bytes)] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe(message);
    expect((error as InputError).exitCode).toBe(2);
  });
});
