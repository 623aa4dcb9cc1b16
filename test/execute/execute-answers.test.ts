import { describe, expect, it } from 'vitest';
import {
  readAccounts,
  readAgreement,
  readCompliance,
  readPayer,
  readPaymentDetail,
} from '../../src/execute/endpoints.js';
import {
  agreementResponse,
  complianceResponse,
  payerStatusResponse,
  paymentDetailResponse,
  paymentDetailsListResponse,
} from '../../src/core/schemas.js';

// The answers are read through compiled copies of the response schemas: each must judge a body as the schema itself
// does, naming the same paths, for bodies as the spec writes them and as a service drifting from it sends them.
const UUID = '3f0c8a4e-1b2c-4d5e-8f90-123456789abc';
const cases = [
  {
    read: readCompliance,
    schema: complianceResponse,
    bodies: [
      { userId: UUID, kycUrl: 'https://k.example/1', status: { agreementStatus: 'a', kycStatus: 'k' }, extra: 1 },
      { userId: 'not-a-uuid', kycUrl: 'not a url', agreementUrl: 7, status: { kycStatus: 'k' } },
      { status: 'weird' },
      'not json',
      null,
    ],
    // By index: bodies that are not this operation's answer at all (no userId, links or status; not an object).
    unclear: [2, 3, 4],
  },
  {
    read: readPaymentDetail,
    schema: paymentDetailResponse,
    bodies: [
      {
        payment_detail: { id: 'p1', clientUserId: 'c', bankName: 'b', accountName: 'a', currency: 'USD' },
      },
      { payment_detail: { id: 12, beneficiaryType: 'individual' } },
      [],
    ],
    unclear: [2],
  },
  { read: readAgreement, schema: agreementResponse, bodies: [{ success: true }, { success: 'yes' }, {}] },
  {
    read: readPayer,
    schema: payerStatusResponse,
    bodies: [{ userId: UUID, kycStatus: 'k', agreementStatus: 'a', isCompliant: true }, { isCompliant: 'no' }],
    unclear: [1],
  },
  {
    read: readAccounts,
    schema: paymentDetailsListResponse,
    bodies: [{ paymentDetails: [] }, { paymentDetails: [{ id: 5 }, { bankName: 'x' }] }, { paymentDetails: 'none' }],
    unclear: [2],
  },
];

describe('reading answers with the compiled response schemas', () => {
  for (const { read, schema, bodies, unclear = [] } of cases as Array<
    (typeof cases)[number] & { unclear?: number[] }
  >) {
    it(`${read.name} names the issues the schema names, and calls unclear what is not the operation's answer`, () => {
      bodies.forEach((body, i) => {
        const parsed = schema.safeParse(body);
        const expected = parsed.success
          ? []
          : parsed.error.issues.map((issue) => (issue.path.length === 0 ? '(body)' : issue.path.join('.')));
        const answer = read(body as never, 200);
        if (unclear.includes(i)) expect(answer.unclear, JSON.stringify(body)).toEqual(expect.any(String));
        else {
          expect(answer.unclear, JSON.stringify(body)).toBeUndefined();
          expect(answer.problems, JSON.stringify(body)).toEqual(expected);
        }
      });
    });
  }

  it('reads a compliance answer as zod does, whether or not it takes the plain path', () => {
    const urls = [
      undefined,
      'https://k.example/1',
      ' https://k.example/1 ',
      'https://k.exa\nmple/1',
      'https://k.example/a\tb',
      'k.example/1',
      '',
      'mailto:kyc@example.com',
      7,
      null,
    ];
    const ids = [undefined, UUID, UUID.toUpperCase(), 'not-a-uuid', '', 5];
    const statuses = [{ agreementStatus: 'a', kycStatus: 'k', more: 1 }, { agreementStatus: '', kycStatus: 'k' }, {}];
    let n = 0;
    for (const agreementUrl of urls)
      for (const kycUrl of urls)
        for (const userId of ids)
          for (const status of statuses) {
            const body: Record<string, unknown> = { status, extra: true };
            if (agreementUrl !== undefined) body['agreementUrl'] = agreementUrl;
            if (kycUrl !== undefined) body['kycUrl'] = kycUrl;
            if (userId !== undefined) body['userId'] = userId;
            const parsed = complianceResponse.safeParse(body);
            if (!parsed.success) continue;
            n++;
            const { userId: u, agreementUrl: a, kycUrl: k, status: st } = parsed.data;
            const expected: Record<string, string> = {};
            const read = {
              userId: u,
              agreementUrl: a,
              kycUrl: k,
              agreementStatus: st.agreementStatus,
              kycStatus: st.kycStatus,
            };
            for (const [key, value] of Object.entries(read)) if (value !== undefined) expected[key] = value;
            expect(readCompliance(body), JSON.stringify(body)).toEqual({ value: expected, problems: [] });
          }
    expect(n).toBeGreaterThan(20);
  });

  it('takes what a valid compliance answer gives', () => {
    const body = { userId: UUID, kycUrl: 'https://k.example/1', status: { agreementStatus: 'a', kycStatus: 'k' } };
    expect(readCompliance(body)).toEqual({
      value: { userId: UUID, kycUrl: 'https://k.example/1', agreementStatus: 'a', kycStatus: 'k' },
      problems: [],
    });
  });
});
