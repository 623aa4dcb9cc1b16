import { describe, expect, test } from 'vitest';
import { TEMPLATE_EXAMPLE } from '../../src/rows/fields.js';
import { JsonNumber } from '../../src/rows/findData.js';
import type { PayerRowResult } from '../../src/core/types.js';
import { validatePayerRow } from '../../src/validate/validatePayerRow.js';

// A JSONL line as the reader hands it over: its keys as columns, its JSON values as they parsed.
const line = (object: Record<string, unknown>) =>
  validatePayerRow(
    Object.entries(object).map(([column, value]) => ({ column, value })),
    {
      defaultAgreementCompleted: false,
      today: new Date(2024, 5, 15),
    },
  );
const payerOnly = Object.fromEntries(
  Object.entries(TEMPLATE_EXAMPLE)
    .filter(([, v]) => v !== '')
    .slice(0, 16),
);
const okOf = (r: PayerRowResult) => {
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r;
};
const issuesOf = (r: PayerRowResult) => (r.ok ? [] : r.issues);

const usAccount = {
  bankName: 'Example Bank',
  accountName: 'Jane Doe',
  currency: 'usd',
  accountNumber: '123456789',
  routingNumber: '021000021',
};
const euAccount = {
  bank_name: 'Deutsche Bank',
  accountName: 'Jane Doe',
  currency: 'EUR',
  iban: 'DE89 3704 0044 0532 0130 00',
  bankCountry: 'de',
  rails: 'swift',
  swiftBic: 'DEUTDEFF',
};

describe('JSONL rows', () => {
  test('numbers become their decimal text, booleans are fine for agreementCompleted', () => {
    const result = okOf(line({ ...payerOnly, clientUserId: 4711, addressLine2: 4, agreementCompleted: true }));
    expect(result.compliance).toMatchObject({ clientUserId: '4711', addressLine2: '4' });
    expect(result.clientUserId).toBe('4711');
    expect(result.agreementCompleted).toBe(true);
  });

  test('paymentDetails as an array: each entry is a detail, filled from the payer', () => {
    const result = okOf(line({ ...payerOnly, paymentDetails: [usAccount, euAccount] }));
    expect(result.paymentDetails).toEqual([
      {
        bankName: 'Example Bank',
        accountName: 'Jane Doe',
        beneficiaryType: 'individual',
        currency: 'usd',
        addressLine1: '123 Main Street',
        city: 'Springfield',
        country: 'US',
        dateOfBirth: '1985-04-12',
        postalCode: '62701',
        accountNumber: '123456789',
        routingNumber: '021000021',
        addressLine2: 'Apt 4B',
        state: 'IL',
      },
      {
        bankName: 'Deutsche Bank',
        accountName: 'Jane Doe',
        beneficiaryType: 'individual',
        currency: 'eur',
        addressLine1: '123 Main Street',
        city: 'Springfield',
        country: 'DE',
        dateOfBirth: '1985-04-12',
        postalCode: '62701',
        addressLine2: 'Apt 4B',
        state: 'IL',
        rails: 'swift',
        iban: 'DE89370400440532013000',
        swiftBic: 'DEUTDEFF',
      },
    ]);
  });

  test('paymentDetails as one object; its own field names override the payer, like bank* columns', () => {
    const result = okOf(line({ ...payerOnly, paymentDetails: { ...usAccount, city: 'Chicago', postalCode: '60601' } }));
    expect(result.paymentDetails).toHaveLength(1);
    expect(result.paymentDetails[0]).toMatchObject({ city: 'Chicago', postalCode: '60601' });
  });

  test('bank cells on the line and paymentDetails together give both, the line first', () => {
    const result = okOf(line({ ...payerOnly, ...usAccount, paymentDetails: [euAccount] }));
    expect(result.paymentDetails.map((d) => d.currency)).toEqual(['usd', 'eur']);
  });

  test('entry issues name the key inside the entry; lone objects have no index', () => {
    expect(
      issuesOf(
        line({
          ...payerOnly,
          paymentDetails: [usAccount, { ...euAccount, iban: 'DE00370400440532013000', routingCode: '1' }],
        }),
      ),
    ).toEqual([
      { column: 'paymentDetails[1].iban', message: 'must be a valid IBAN: its check digits do not match (mod-97)' },
      // Not `routing`: that one is an alias of routingNumber.
      { column: 'paymentDetails[1].routingCode', message: 'is not a payment-detail field' },
    ]);
    // What its currency needs is said beside the rest: one round of fixes.
    expect(issuesOf(line({ ...payerOnly, paymentDetails: { bankName: 'X', currency: 'EUR' } }))).toEqual([
      { column: 'paymentDetails.accountName', message: 'is required' },
      { column: 'paymentDetails.iban', message: 'is required for a EUR account' },
    ]);
  });

  test('paymentDetails must hold objects', () => {
    expect(issuesOf(line({ ...payerOnly, paymentDetails: 'Example Bank' }))).toEqual([
      { column: 'paymentDetails', message: 'must be an object or an array of objects' },
    ]);
    expect(issuesOf(line({ ...payerOnly, paymentDetails: [usAccount, 7] }))).toEqual([
      { column: 'paymentDetails[1]', message: 'must be an object' },
    ]);
    expect(okOf(line({ ...payerOnly, paymentDetails: [] })).paymentDetails).toEqual([]);
  });

  test('objects, arrays and booleans elsewhere are issues, not "[object Object]"', () => {
    expect(
      issuesOf(line({ ...payerOnly, firstName: { given: 'Jane' }, lastName: ['Doe'], companyName: true })),
    ).toEqual([
      { column: 'firstName', message: 'must be text, got an object' },
      { column: 'lastName', message: 'must be text, got a list' },
      { column: 'companyName', message: 'must be text, got true' },
    ]);
  });

  test('null is absent', () => {
    expect(issuesOf(line({ ...payerOnly, ssn: null, companyName: null }))).toEqual([
      { column: 'ssn', message: 'is required' },
    ]);
  });

  test('two keys for one field on a line: the second is an issue unless it is blank', () => {
    expect(issuesOf(line({ ...payerOnly, first_name: 'Janet' }))).toEqual([
      { column: 'first_name', message: 'gives firstName a second time (already given as "firstName")' },
    ]);
    expect(line({ ...payerOnly, first_name: '' }).ok).toBe(true);
  });
});

describe('JSONL numbers in fields of digits', () => {
  const FIX = 'write it as a string with all its digits';

  test('an accountNumber given as a JSON number is invalid, named, and never echoed', () => {
    const issues = issuesOf(line({ ...payerOnly, ...usAccount, accountNumber: 123456789 }));
    expect(issues).toEqual([
      {
        column: 'accountNumber',
        message: `is a JSON number, which cannot keep leading zeros: ${FIX} ("accountNumber": "...")`,
      },
    ]);
    expect(JSON.stringify(issues)).not.toContain('123456789');
  });

  test('the fix names the key as the line spells it, inside a paymentDetails entry too', () => {
    expect(
      issuesOf(
        line({ ...payerOnly, paymentDetails: [{ ...usAccount, accountNumber: undefined, account_number: 42 }] }),
      ),
    ).toEqual([
      {
        column: 'paymentDetails[0].account_number',
        message: `is a JSON number, which cannot keep leading zeros: ${FIX} ("account_number": "...")`,
      },
    ]);
  });

  test('a postcode given as a JSON number is invalid, its value shown as a postcode is', () => {
    expect(issuesOf(line({ ...payerOnly, postcode: 2139 }))).toEqual([
      {
        column: 'postcode',
        message: `is a JSON number, which cannot keep leading zeros: ${FIX} ("postcode": "..."), got "2139"`,
      },
    ]);
  });

  test("a bank postal code overriding the payer's is a field of digits too", () => {
    expect(issuesOf(line({ ...payerOnly, ...usAccount, bankPostalCode: 6060 }))).toEqual([
      {
        column: 'bankPostalCode',
        message: `is a JSON number, which cannot keep leading zeros: ${FIX} ("bankPostalCode": "..."), got "6060"`,
      },
    ]);
  });

  test('a phone given as a JSON number lost its +, and is shown by its shape only', () => {
    expect(issuesOf(line({ ...payerOnly, phone: 12175550100 }))).toEqual([
      {
        column: 'phone',
        message:
          'is a JSON number, which cannot keep a leading + or 0: write it as a string with + and its country code ("phone": "+..."), got "99999999999" (masked as personal data: digits shown as 9, letters as a)',
      },
    ]);
  });

  // 9 digits: not a sort code's 6 (a routing number's 9 are read as written: see below).
  test.each(['sortCode', 'iban', 'documentNumber', 'ssn', 'ifsc', 'ribNumber'])(
    '%s given as a JSON number is invalid, the value never echoed',
    (field) => {
      const issues = issuesOf(line({ ...payerOnly, ...usAccount, [field]: 987654321 }));
      expect(issues).toContainEqual({ column: field, message: expect.stringMatching(/^is a JSON number, /) });
      expect(JSON.stringify(issues)).not.toContain('987654321');
    },
  );
});

describe('JSONL numbers of the only length their field can have for the row', () => {
  const FIX = 'write it as a string with all its digits';
  /** A number as the reader hands it over: plain where its text is its value's, else with its text as written. */
  const written = (text: string) => (String(Number(text)) === text ? Number(text) : new JsonNumber(text, Number(text)));

  test('a routing number of 9 digits and a US ZIP of 5 lost no leading zero: read as written, with no warning', () => {
    const result = okOf(
      line({ ...payerOnly, postcode: written('62701'), ...usAccount, routingNumber: written('121000358') }),
    );
    expect(result.compliance.postcode).toBe('62701');
    expect(result.paymentDetails[0]).toMatchObject({ routingNumber: '121000358', postalCode: '62701' });
    expect(result.warnings).toBeUndefined();
  });

  test.each(['62701.0', '6.2701e4', '6.2701E+4', '-62701'])(
    'a number written %s (a fraction, an exponent, a sign) is refused as before',
    (text) => {
      expect(issuesOf(line({ ...payerOnly, postcode: written(text) }))).toEqual([
        {
          column: 'postcode',
          message: `is a JSON number, which cannot keep leading zeros: ${FIX} ("postcode": "..."), got "${String(Number(text))}"`,
        },
      ]);
    },
  );

  test('a postcode goes by the row: 5 digits are refused for a GB row, and for a US row a 4-digit one', () => {
    const gb = { ...payerOnly, country: 'GB', nationality: 'GB' };
    expect(issuesOf(line({ ...gb, postcode: written('62701') }))).toEqual([
      {
        column: 'postcode',
        message: `is a JSON number, which cannot keep leading zeros: ${FIX} ("postcode": "..."), got "62701"`,
      },
    ]);
    expect(issuesOf(line({ ...payerOnly, postcode: written('2139') }))).toEqual([
      {
        column: 'postcode',
        message: `is a JSON number, which cannot keep leading zeros: ${FIX} ("postcode": "..."), got "2139"`,
      },
    ]);
  });

  test("an entry's postal code goes by its own country, else by the payer's", () => {
    const entry = { ...usAccount, postalCode: written('10115') };
    const german = okOf(line({ ...payerOnly, country: 'DE', paymentDetails: [entry] }));
    expect(german.paymentDetails[0]).toMatchObject({ postalCode: '10115', country: 'DE' });
    expect(okOf(line({ ...payerOnly, paymentDetails: [entry] })).paymentDetails[0]).toMatchObject({
      postalCode: '10115',
    });
    expect(issuesOf(line({ ...payerOnly, paymentDetails: [{ ...entry, country: 'GB' }] }))).toEqual([
      {
        column: 'paymentDetails[0].postalCode',
        message: `is a JSON number, which cannot keep leading zeros: ${FIX} ("postalCode": "..."), got "10115"`,
      },
    ]);
  });

  test('an SSN, an account number and a phone are refused whatever their length', () => {
    const issues = issuesOf(
      line({
        ...payerOnly,
        ssn: written('123456789'),
        phone: written('12175550100'),
        ...usAccount,
        accountNumber: written('123456789'),
      }),
    );
    expect(issues.map((issue) => issue.column).sort()).toEqual(['accountNumber', 'phone', 'ssn']);
  });

  test('a number where an entry is meant is not taken for an entry', () => {
    expect(issuesOf(line({ ...payerOnly, paymentDetails: written('5') }))).toEqual([
      { column: 'paymentDetails', message: 'must be an object or an array of objects' },
    ]);
    expect(issuesOf(line({ ...payerOnly, paymentDetails: [written('5')] }))).toEqual([
      { column: 'paymentDetails[0]', message: 'must be an object' },
    ]);
  });
});
