import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agreementRequest, complianceRequest, paymentDetailRequest } from '../../src/core/schemas.js';
import { harness } from '../helpers/runHarness.js';

// What the tool sends holds only fields of the service's OpenAPI v2, and every field it requires. The lists are kept
// in test/fixtures/openapi-v2-requests.json, read off the service's own document: a field the tool starts sending
// that the service does not know, or one the service starts requiring, fails here first.

type Listed = { properties: string[]; required: string[] };
const OPENAPI = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'fixtures', 'openapi-v2-requests.json'), 'utf8'),
) as Record<string, Listed>;
const COMPLIANCE = OPENAPI['POST /v2/payer']!;
const PAYMENT_DETAIL = OPENAPI['POST /v2/payer/{clientUserId}/payment-details']!;
const AGREEMENT = OPENAPI['PATCH /v2/payer/{clientUserId}']!;

const requiredOf = (shape: Record<string, { safeParse(v: unknown): { success: boolean } }>) =>
  Object.keys(shape).filter((field) => !shape[field]!.safeParse(undefined).success);

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("request bodies against the service's OpenAPI v2", () => {
  it.each([
    ['create compliance', complianceRequest.shape, COMPLIANCE],
    ['create payment details', paymentDetailRequest.shape, PAYMENT_DETAIL],
    ['the agreement', agreementRequest.shape, AGREEMENT],
  ] as const)(
    '%s: the schema the tool builds bodies from has the same fields, the same required',
    (_, shape, listed) => {
      expect(Object.keys(shape).sort()).toEqual([...listed.properties].sort());
      expect(requiredOf(shape as never).sort()).toEqual([...listed.required].sort());
    },
  );

  it('bodies a run sends, every optional column filled, hold only listed fields and all required ones', async () => {
    h = await harness({ kycAfter: 0 });
    const header =
      'clientUserId,email,firstName,lastName,beneficiaryType,companyName,sourceOfFunds,businessActivity,dateOfBirth,addressLine1,addressLine2,city,state,postcode,country,nationality,phone,ssn,bankName,accountName,currency,iban,swiftBic,rails,documentNumber,documentType,bankCode,branchCode';
    const rows = [
      'ob-1,ob1@example.com,Ada,Lovelace,business,Analytical Ltd,revenue,software,1985-12-10,12 Analytical Way,Suite 4,Berlin,BE,10115,DE,DE,+4930123456,123-45-6789,Deutsche Bank,Analytical Ltd,EUR,DE89370400440532013000,DEUTDEFF,swift,X1234567,passport,37040044,500',
      'ob-2,ob2@example.com,Grace,Hopper,individual,,,,1980-01-02,1 Main St,,Springfield,IL,62701,US,US,+12175550100,987-65-4321,,,,,,,,,,',
    ];
    const input = h.tmp.write('payers.csv', `${header}\n${rows.join('\n')}\n`);
    const { results } = await h.run({ agreementSignedElsewhere: true, inputs: [input] });
    expect(results.map((r) => r.outcome)).toEqual(['ok', 'ok']);

    const bodies = ['ob-1', 'ob-2'].map((id) => h!.sandbox.payer(id)!.request as Record<string, unknown>);
    const accounts = h.sandbox.payer('ob-1')!.paymentDetails.map((d) => d.request as Record<string, unknown>);
    expect(accounts).toHaveLength(1);
    for (const [body, listed] of [
      ...bodies.map((b) => [b, COMPLIANCE] as const),
      ...accounts.map((a) => [a, PAYMENT_DETAIL] as const),
    ]) {
      expect(Object.keys(body).filter((field) => !listed.properties.includes(field))).toEqual([]);
      expect(listed.required.filter((field) => !(field in body))).toEqual([]);
    }
    // Every optional field of the rows went out: the test covers what a full row sends.
    expect(Object.keys(bodies[0]!)).toEqual(expect.arrayContaining(['companyName', 'sourceOfFunds', 'addressLine2']));
    expect(Object.keys(accounts[0]!)).toEqual(expect.arrayContaining(['iban', 'swiftBic', 'rails', 'documentNumber']));
  });
});
