import { describe, expect, test } from 'vitest';
import { TEMPLATE_COLUMNS, TEMPLATE_EXAMPLE } from '../../src/rows/fields.js';
import { complianceRequest, paymentDetailRequest } from '../../src/core/schemas.js';
import { validatePayerRow } from '../../src/validate/validatePayerRow.js';

describe('template', () => {
  test('every column in documented order: payer fields, bank-only fields, bank overrides, agreementCompleted', () => {
    expect(TEMPLATE_COLUMNS).toEqual([
      'clientUserId',
      'email',
      'firstName',
      'lastName',
      'beneficiaryType',
      'dateOfBirth',
      'addressLine1',
      'city',
      'state',
      'postcode',
      'country',
      'nationality',
      'phone',
      'ssn',
      'companyName',
      'addressLine2',
      'sourceOfFunds',
      'businessActivity',
      'bankName',
      'accountName',
      'currency',
      'accountNumber',
      'routingNumber',
      'rails',
      'sortCode',
      'iban',
      'swiftBic',
      'documentNumber',
      'documentType',
      'accountType',
      'ribNumber',
      'bsbNumber',
      'ncc',
      'branchCode',
      'bankCode',
      'ifsc',
      'bankBeneficiaryType',
      'bankAddressLine1',
      'bankAddressLine2',
      'bankCity',
      'bankState',
      'bankCountry',
      'bankDateOfBirth',
      'bankPostalCode',
      'agreementCompleted',
    ]);
  });

  test('the example has a value, maybe blank, for exactly the template columns', () => {
    expect(Object.keys(TEMPLATE_EXAMPLE)).toEqual(TEMPLATE_COLUMNS);
    expect(TEMPLATE_EXAMPLE).toMatchObject({ routingNumber: '021000021', phone: '+12175550100' });
  });

  test('the example row is valid and its bodies pass the spec schemas', () => {
    const cells = Object.entries(TEMPLATE_EXAMPLE).map(([column, value]) => ({ column, value }));
    const result = validatePayerRow(cells, { defaultAgreementCompleted: false });
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    expect(complianceRequest.parse(result.compliance)).toEqual(result.compliance);
    expect(result.paymentDetails).toHaveLength(1);
    expect(paymentDetailRequest.parse(result.paymentDetails[0])).toEqual(result.paymentDetails[0]);
    // Blank: the payer signs it on their page.
    expect(result.agreementCompleted).toBe(false);
  });
});
