import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { fieldForColumn } from '../../src/rows/columns.js';
import { harness } from '../helpers/runHarness.js';
import { day, writeWorkbook } from '../helpers/xlsxFixtures.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

// A finance team's own column names, each one a built-in alias.
const ALIAS_HEADER = [
  'Client ID',
  'Email Address',
  'Given Name',
  'Surname',
  'Beneficiary Type',
  'DOB',
  'Street',
  'Address 2',
  'Town',
  'State',
  'Zip Code',
  'Country',
  'Citizenship',
  'Mobile',
  'SSN',
  'Bank',
  'Account Holder',
  'Currency',
  'Account No',
  'ABA',
  'Account Type',
  'Notes',
];
const aliasRow = (id: string) => [
  id,
  `${id}@example.com`,
  'Grace',
  'Hopper',
  'individual',
  day('1976-12-09'),
  '1 Navy Way',
  'Apt 2',
  'Arlington',
  'VA',
  '02101',
  'US',
  'US',
  '+1 217 555 0100',
  '123-45-6789',
  'Navy Federal',
  'Grace Hopper',
  'USD',
  '000123456789',
  '021000021',
  'savings',
  'call first',
];

describe('column names as people write them', () => {
  it('reads a sheet whose headers are aliases, and validate prints the mapping and the ignored columns first', async () => {
    const input = await writeWorkbook(h.tmp.path('team.xlsx'), [
      { name: 'Sheet1', textColumns: ['Zip Code', 'ABA', 'Account No'], rows: [ALIAS_HEADER, aliasRow('al-1')] },
    ]);
    const checked = await h.run({ inputs: [input], command: 'validate' });
    expect(checked.summary.exitCode).toBe(0);
    expect(
      checked.stderr.startsWith(
        'team.xlsx: columns read as\n  Client ID -> clientUserId\n  Email Address -> email\n  Given Name -> firstName\n',
      ),
    ).toBe(true);
    expect(checked.stderr).toContain(
      '  DOB -> dateOfBirth\n  Street -> addressLine1\n  Address 2 -> addressLine2\n  Town -> city\n',
    );
    expect(checked.stderr).toContain('  Zip Code -> postcode\n');
    expect(checked.stderr).toContain(
      '  Account Holder -> accountName\n  Currency -> currency\n  Account No -> accountNumber\n  ABA -> routingNumber\n',
    );
    expect(checked.stderr).toContain('team.xlsx: columns ignored: "Notes"\n');

    const { summary } = await h.run({ inputs: [input] });
    expect(summary.exitCode).toBe(0);
    const stored = h.sandbox.payer('al-1')!;
    expect(stored.request).toMatchObject({
      email: 'al-1@example.com',
      firstName: 'Grace',
      lastName: 'Hopper',
      dateOfBirth: '1976-12-09',
      postcode: '02101',
      phone: '+12175550100',
      addressLine2: 'Apt 2',
    });
    expect(stored.paymentDetails[0]!.request).toMatchObject({
      bankName: 'Navy Federal',
      accountName: 'Grace Hopper',
      routingNumber: '021000021',
      accountType: 'savings',
      postalCode: '02101',
    });
  });

  it('spells the postal code as each file kind has it: Zip is postcode on a payer row, postalCode on a bank row', () => {
    expect(fieldForColumn('Zip', 'payers')).toBe('postcode');
    expect(fieldForColumn('ZIP', 'bank-details')).toBe('postalCode');
    expect(fieldForColumn('Postal Code', 'payers')).toBe('postcode');
    expect(fieldForColumn('SWIFT', 'bank-details')).toBe('swiftBic');
    expect(fieldForColumn('E-mail', 'payers')).toBe('email');
    expect(fieldForColumn('Email Address', 'bank-details')).toBeUndefined(); // a bank row has no e-mail
  });

  it('--map names the rest; it wins over a field name of the same spelling', async () => {
    const header =
      'Kunde,E-Mail,Vorname,Nachname,Art,Geburtstag,Strasse,Ort,Bundesland,PLZ,Land,Nationalitaet,Telefon,SSN,firstName';
    const row =
      'm-1,m-1@example.com,Karl,Weber,individual,1970-01-31,Hauptstr. 1,Springfield,IL,62701,US,US,+12175550100,123-45-6789,ignored';
    const input = h.tmp.write('kunden.csv', `${header}\n${row}\n`);
    const map = h.tmp.write(
      'map.json',
      JSON.stringify({
        Kunde: 'clientUserId',
        Vorname: 'firstName',
        Nachname: 'lastName',
        Art: 'beneficiaryType',
        Geburtstag: 'date_of_birth',
        Strasse: 'addressLine1',
        Ort: 'city',
        Bundesland: 'state',
        PLZ: 'postalCode',
        Land: 'country',
        Nationalitaet: 'nationality',
        Telefon: 'phone',
        firstName: 'companyName',
      }),
    );
    const { summary } = await h.run({ inputs: [input], map });
    expect(summary.exitCode).toBe(0);
    expect(h.sandbox.payer('m-1')!.request).toMatchObject({
      firstName: 'Karl',
      lastName: 'Weber',
      dateOfBirth: '1970-01-31',
      postcode: '62701',
      companyName: 'ignored',
    });
  });

  it('--map with unknown field names stops the run (exit 2), naming every one', async () => {
    const input = h.tmp.write('p.csv', 'a\n1\n');
    const map = h.tmp.write('map.json', JSON.stringify({ A: 'clientUserId', B: 'surname_typo', C: 'zipp' }));
    const error = await h.run({ inputs: [input], map }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    expect((error as ConfigError).message).toBe(
      '--map: unknown field names "surname_typo", "zipp" (see `payer-onboard template` for every field)',
    );
    expect(h.sandbox.stats().requests).toBe(0);
    const notJson = h.tmp.write('bad.json', '{"A": ');
    await expect(h.run({ inputs: [input], map: notJson })).rejects.toThrow(/^--map: .*bad\.json is not valid JSON/);
    await expect(h.run({ inputs: [input], map: 'nomap.json' })).rejects.toThrow(
      `--map: no such file nomap.json in ${h.tmp.dir}: give pairs --map "Type=beneficiaryType,Zip Code=postcode", JSON --map '{"Type": "beneficiaryType"}', or a file of that JSON`,
    );
  });
});
