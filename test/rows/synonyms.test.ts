import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { loadColumnMap, mapHeader } from '../../src/rows/columns.js';
import { normalizeName } from '../../src/rows/synonyms.js';
import { harness } from '../helpers/runHarness.js';

// Column names in people's words and languages, and the exports finance teams start from: read with no --map where
// they can mean one field only; asked, never guessed, where they could be two.

const fieldsOf = (header: string[], kind: 'payers' | 'bank-details' = 'payers') => mapHeader(header, kind).fields;

describe('synonyms', () => {
  it('are matched without case, accents or punctuation', () => {
    expect(normalizeName(' N° Client ')).toBe('nclient');
    expect(normalizeName('Prénom')).toBe('prenom');
    expect(normalizeName('Straße')).toBe('strasse');
    expect(normalizeName('Supplier no.')).toBe('supplierno');
  });

  it("a payer's id, in the words of a vendor list, a customer list and four languages", () => {
    const ids = ['Vendor ID', 'Kunden-ID', 'ID', 'Customer number', 'Supplier no.', 'N° client', 'Kundennummer'];
    for (const name of ids) expect(fieldsOf([name]), name).toEqual(['clientUserId']);
  });

  it('German, French, Spanish, Italian and Dutch column names', () => {
    expect(fieldsOf(['Vorname', 'Nachname', 'Geburtsdatum', 'Straße', 'PLZ', 'Ort', 'Telefon', 'E-Mail'])).toEqual([
      ...['firstName', 'lastName', 'dateOfBirth', 'addressLine1', 'postcode', 'city', 'phone', 'email'],
    ]);
    expect(fieldsOf(['Prénom', 'Nom de famille', 'Date de naissance', 'Code postal', 'Ville', 'Pays'])).toEqual([
      ...['firstName', 'lastName', 'dateOfBirth', 'postcode', 'city', 'country'],
    ]);
    expect(fieldsOf(['Nombre', 'Apellidos', 'Fecha de nacimiento', 'Código postal', 'Teléfono'])).toEqual([
      ...['firstName', 'lastName', 'dateOfBirth', 'postcode', 'phone'],
    ]);
    expect(fieldsOf(['Cognome', 'Data di nascita', 'CAP', 'Voornaam', 'Geboortedatum'])).toEqual([
      ...['lastName', 'dateOfBirth', 'postcode', 'firstName', 'dateOfBirth'],
    ]);
    expect(fieldsOf(['IBAN', 'BLZ', 'Kontoinhaber', 'Währung'])).toEqual([
      'iban',
      'bankCode',
      'accountName',
      'currency',
    ]);
    // A bank row spells the postal code its own way.
    expect(fieldsOf(['Postleitzahl'], 'bank-details')).toEqual(['postalCode']);
  });

  it("Xero's contact export maps with no pick but its AccountNumber, asked beside BankAccountNumber", () => {
    const xero = [
      ...['*ContactName', 'AccountNumber', 'EmailAddress', 'FirstName', 'LastName', 'POAddressLine1', 'POAddressLine2'],
      ...['POCity', 'PORegion', 'POPostalCode', 'POCountry', 'PhoneNumber', 'MobileNumber', 'BankAccountName'],
      'BankAccountNumber',
    ];
    const read = mapHeader(xero, 'payers');
    // Only the id is open: BankAccountNumber holds the account number.
    expect(read.asked).toEqual([{ column: 'AccountNumber', fields: ['clientUserId'], someHeld: true }]);
    expect(read.fields.slice(2, 12)).toEqual([
      ...['email', 'firstName', 'lastName', 'addressLine1', 'addressLine2', 'city', 'state', 'postcode', 'country'],
      'phone',
    ]);
    expect(read.fields.slice(13)).toEqual(['accountName', 'accountNumber']);
    // The mobile yields to the phone, and says so; the contact's name is a person's or a company's: not read.
    expect(read.passed).toEqual([{ column: 'MobileNumber', field: 'phone', by: 'PhoneNumber' }]);
    expect(read.unknown).toEqual(['*ContactName']);
    // Settled: the contact's own number is a fine id for the payer.
    const settled = mapHeader(xero, 'payers', loadColumnMap('AccountNumber=clientUserId', '/'));
    expect(settled.asked).toEqual([]);
    // What a contact export lacks for a payer, the file must add.
    expect(settled.missing).toEqual(['beneficiaryType', 'dateOfBirth', 'nationality', 'ssn']);
    expect(settled.fields[1]).toBe('clientUserId');
  });

  it('the exports of QuickBooks Online, NetSuite and SAP Business One', () => {
    expect(fieldsOf(['Company', 'Street Address', 'City', 'State', 'Zip', 'Phone', 'Email'])).toEqual([
      ...['companyName', 'addressLine1', 'city', 'state', 'postcode', 'phone', 'email'],
    ]);
    const netsuite = mapHeader(['Internal ID', 'ID', 'Company Name', 'Address 1', 'State/Province'], 'payers');
    expect(netsuite.fields).toEqual([undefined, 'clientUserId', 'companyName', 'addressLine1', 'state']);
    expect(netsuite.passed).toEqual([{ column: 'Internal ID', field: 'clientUserId', by: 'ID' }]);
    expect(fieldsOf(['BP Code', 'E_Mail', 'Street', 'ZIP Code', 'Telephone 1'])).toEqual([
      ...['clientUserId', 'email', 'addressLine1', 'postcode', 'phone'],
    ]);
  });

  it('a name that could be a person or a company is asked about, unless a column holds one of them', () => {
    expect(mapHeader(['Vendor ID', 'Vendor name', 'Email'], 'payers').asked).toEqual([
      { column: 'Vendor name', fields: ['companyName', 'lastName'], someHeld: false },
    ]);
    expect(mapHeader(['Nom', 'Prénom'], 'payers').asked).toEqual([
      { column: 'Nom', fields: ['companyName', 'lastName'], someHeld: false },
    ]);
    // Beside a last name, `Vendor name` may be the company: not read, and not guessed either.
    const beside = mapHeader(['Vendor ID', 'Vendor name', 'Last name'], 'payers');
    expect(beside.asked).toEqual([]);
    expect(beside.unknown).toEqual(['Vendor name']);
    // `ID` beside `Tax ID`: either could be the payer's own number; a tax number may be a person's SSN, or a company's.
    expect(mapHeader(['ID', 'Tax ID'], 'payers').asked).toEqual([
      { column: 'ID', fields: ['clientUserId', 'ssn'], someHeld: false },
      { column: 'Tax ID', fields: ['ssn'], someHeld: false },
    ]);
  });

  it("a field's own name, exactly as the tool spells it, is never unsure", () => {
    const read = mapHeader(['accountNumber', 'clientUserId', 'BankAccountNumber'], 'payers');
    expect(read.asked).toEqual([]);
    expect(read.duplicates).toEqual([{ field: 'accountNumber', columns: ['accountNumber', 'BankAccountNumber'] }]);
  });
});

describe('a header that could be two fields, on the CLI', () => {
  let h: Awaited<ReturnType<typeof harness>>;
  beforeEach(async () => {
    h = await harness();
  });
  afterEach(async () => {
    await h.close();
  });

  const header =
    'Kunden-ID,E-Mail,Vorname,Vendor name,Typ,Geburtsdatum,Straße,Ort,Bundesland,PLZ,Land,Staatsangehörigkeit,Telefon,SSN';
  const row =
    'k-1,k-1@example.com,Karl,Weber,individual,1970-01-31,Hauptstr. 1,Springfield,IL,62701,US,US,+12175550100,123-45-6789';

  it('exits 2 naming the --map that settles it, and sends nothing', async () => {
    const input = h.tmp.write('kunden.csv', `${header}\n${row}\n`);
    const error = await h.run({ inputs: [input], command: 'validate' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).exitCode).toBe(2);
    expect((error as InputError).message).toBe(
      'kunden.csv:1: column "Vendor name" could be companyName or lastName, and the tool does not guess: add --map "Vendor name=companyName" (or "Vendor name=lastName"), or --split-name "Vendor name" for people\'s whole names',
    );
    expect(h.sandbox.stats().requests).toBe(0);
  });

  it('settled by --map, the German file is sent with no other mapping: its Type column named by its values', async () => {
    const input = h.tmp.write('kunden.csv', `${header.replace('Typ', 'Type')}\n${row}\n`);
    const { summary } = await h.run({ inputs: [input], map: 'Vendor name=lastName' });
    expect(summary.exitCode).toBe(0);
    expect(summary.warnings).toContain('kunden.csv: column "Type" holds individual, so it is read as beneficiaryType');
    expect(h.sandbox.payer('k-1')!.request).toMatchObject({
      firstName: 'Karl',
      lastName: 'Weber',
      dateOfBirth: '1970-01-31',
      addressLine1: 'Hauptstr. 1',
      postcode: '62701',
      nationality: 'US',
    });
  });

  it('JSON lines are read by the same names', async () => {
    const line = {
      'Kunden-ID': 'j-1',
      'E-Mail': 'j-1@example.com',
      Vorname: 'Jo',
      Nachname: 'Weber',
      beneficiaryType: 'individual',
      Geburtsdatum: '1970-01-31',
      Straße: 'Hauptstr. 1',
      Ort: 'Springfield',
      Bundesland: 'IL',
      PLZ: '62701',
      Land: 'US',
      Staatsangehörigkeit: 'US',
      Telefon: '+12175550100',
      SSN: '123-45-6789',
    };
    const input = h.tmp.write('kunden.jsonl', `${JSON.stringify(line)}\n`);
    const { summary } = await h.run({ inputs: [input] });
    expect(summary.exitCode).toBe(0);
    expect(h.sandbox.payer('j-1')!.request).toMatchObject({ firstName: 'Jo', lastName: 'Weber', city: 'Springfield' });
  });
});

describe("QuickBooks' Full Name: split into first and last name only when asked", () => {
  let h: Awaited<ReturnType<typeof harness>>;
  beforeEach(async () => {
    h = await harness();
  });
  afterEach(async () => {
    await h.close();
  });

  const header = 'Vendor ID,Full Name,Email,Type,DOB,Street,City,State,Zip,Country,Nationality,Phone,SSN';
  const row = (id: string, name: string) =>
    `${id},"${name}",${id}@example.com,individual,1970-01-31,1 Main St,Springfield,IL,62701,US,US,+12175550100,123-45-6789`;
  const file = () =>
    h.tmp.write(
      'vendors.csv',
      `${header}\n${[row('v-1', 'Ada Lovelace'), row('v-2', 'Mary Ann Smith'), row('v-3', 'Hopper, Grace'), row('v-4', 'Cher')].join('\n')}\n`,
    );

  it('never silently: without --split-name the run stops, naming both ways', async () => {
    const error = await h.run({ inputs: [file()], command: 'validate' }).catch((e: unknown) => e);
    expect((error as InputError).message).toBe(
      `vendors.csv:1: column "Full Name" could be companyName or lastName, and the tool does not guess: add --map "Full Name=companyName" (or "Full Name=lastName"), or --split-name "Full Name" for people's whole names`,
    );
  });

  it('with --split-name, the last word (or what comes before a comma) is the last name; one word is that row alone', async () => {
    const { results } = await h.run({ inputs: [file()], splitName: 'full name' });
    const names = (id: string) => {
      const { firstName, lastName } = h.sandbox.payer(id)!.request as { firstName: string; lastName: string };
      return [firstName, lastName];
    };
    expect(names('v-1')).toEqual(['Ada', 'Lovelace']);
    expect(names('v-2')).toEqual(['Mary Ann', 'Smith']);
    expect(names('v-3')).toEqual(['Grace', 'Hopper']);
    expect(results[3]).toMatchObject({ clientUserId: 'v-4', outcome: 'invalid' });
    // The cell is never quoted: a name is personal data.
    expect(results[3]!.error).toBe(
      'Full Name: is one word: the tool cannot tell the first name from the last (give them columns of their own, or write it "Last, First")',
    );
    expect(h.sandbox.payer('v-4')).toBeUndefined();
  });
});
