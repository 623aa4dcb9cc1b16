import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { harness, PAYER_HEADER, payerRow } from '../helpers/runHarness.js';
import { PAYER_COLUMNS, payerRows, writeWorkbook } from '../helpers/xlsxFixtures.js';

// A header the tool does not fully know: a column its values name is read as that field (and said); otherwise the
// message names the header's own line and the columns it did not understand; --map takes a mapping inline as well as
// from a file.

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

/** Payers whose beneficiaryType column is headed `name`, under a title row; a business has its company's name. */
function typedCsv(name: string, types: Record<string, string> = { 'q-2': 'business' }): string {
  const rows = ['q-1', 'q-2'].map((id) => {
    const type = types[id];
    return `${payerRow(id, type === undefined ? {} : { beneficiaryType: type })},${type === 'business' ? 'Acme LLC' : ''}`;
  });
  return `Payers Q3,,\n${PAYER_HEADER.replace('beneficiaryType', name)},companyName\n${rows.join('\n')}\n`;
}

async function refusal(inputs: string[], map?: string): Promise<Error> {
  const error = await h.run({ inputs, ...(map === undefined ? {} : { map }) }).catch((e: unknown) => e as Error);
  if (!(error instanceof Error)) throw new Error('expected the run to be refused');
  expect(h.sandbox.stats().requests).toBe(0);
  return error;
}

const BY_VALUES = (file: string) =>
  `${file}: column "Type" holds individual, business, so it is read as beneficiaryType`;

describe('a header missing a field it holds under another name', () => {
  it('reads a column its values name as that field, and says so (CSV)', async () => {
    const { summary } = await h.run({ inputs: [h.tmp.write('payers-q3.csv', typedCsv('Type'))] });
    expect(summary.exitCode).toBe(0);
    expect(summary.warnings).toContain(BY_VALUES('payers-q3.csv'));
    expect(h.sandbox.payer('q-2')!.request).toMatchObject({ beneficiaryType: 'business' });
  });

  it('reads a column its values name as that field, and says so (.xlsx, header on row 3)', async () => {
    const [header, ...rows] = payerRows(['q-1', 'q-2'], { 'q-2': { beneficiaryType: 'business' } });
    const renamed = (header as string[]).map((c) => (c === 'beneficiaryType' ? 'Type' : c));
    const path = await writeWorkbook(h.tmp.path('payers-q3.xlsx'), [
      { name: 'Payers', rows: [['Payers Q3'], [], renamed, ...rows], textColumns: PAYER_COLUMNS },
    ]);
    const { summary, results } = await h.run({ inputs: [path], command: 'validate' });
    expect(summary.warnings).toContain(BY_VALUES('payers-q3.xlsx'));
    // Read as a business, q-2 needs its company's name, which this sheet does not have.
    expect(results.map((r) => [r.line, r.outcome, r.error])).toEqual([
      ['4', 'ok', ''],
      ['5', 'invalid', 'companyName: is required for a business payer'],
    ]);
  });

  it('lists the columns not understood and how --map names one, where their values suggest nothing', async () => {
    const error = await refusal([h.tmp.write('kinds.csv', typedCsv('Kind', { 'q-1': 'person', 'q-2': 'firm' }))]);
    expect(error.message).toBe(
      'kinds.csv:2: missing required column beneficiaryType, and a column not understood: "Kind": where one of them holds a missing field, name it with --map "Their column=fieldName"',
    );
  });

  it.each([
    ['FROM=TO pairs', 'Type = beneficiaryType, Zip=postcode'],
    ['JSON', '{"Type": "beneficiaryType"}'],
  ])('--map takes %s inline', async (_, map) => {
    const { summary } = await h.run({ inputs: [h.tmp.write('payers-q3.csv', typedCsv('Type'))], map });
    expect(summary.exitCode).toBe(0);
    expect(summary.rows.ok).toBe(2);
    expect(h.sandbox.payer('q-2')!.request).toMatchObject({ beneficiaryType: 'business' });
  });

  it('--map pairs that are not a column and its field are named', async () => {
    const error = await refusal([h.tmp.write('p.csv', typedCsv('Type'))], 'Type=,=beneficiaryType');
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      `--map: "Type=", "=beneficiaryType" are not a column and its field: give pairs --map "Type=beneficiaryType,Zip Code=postcode", JSON --map '{"Type": "beneficiaryType"}', or a file of that JSON`,
    );
  });

  it('--map given a full path that does not exist says so, without telling to give one', async () => {
    const missing = h.tmp.path('columns.json');
    const error = await refusal([h.tmp.write('p.csv', typedCsv('Type'))], missing);
    expect(error.message).toBe(
      `--map: no such file ${missing}: give pairs --map "Type=beneficiaryType,Zip Code=postcode", JSON --map '{"Type": "beneficiaryType"}', or a file of that JSON`,
    );
  });
});
