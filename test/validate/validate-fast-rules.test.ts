import { describe, expect, it } from 'vitest';
import { complianceRequest, paymentDetailRequest } from '../../src/core/schemas.js';
import { clientSchemas, specBodies } from '../../src/validate/clientSchemas.js';
import { plainAccept, plainValues } from '../../src/validate/plainChecks.js';
import { z } from 'zod';

/** A body's values by their key's place in the schema's shape, as a row's checks hand them over. */
const byPlace = (schema: z.ZodObject, body: Record<string, string>) =>
  Object.keys(schema.shape).map((key) => body[key]);

// The fast rules decide alone only what they accept: each accepted text must be one zod accepts, with the same value.
const SAMPLES: Record<string, string[]> = {
  clientUserId: ['p-1', 'x', ' '],
  email: ['ada@example.com', 'a.b+c@mail.example.co.uk', 'ada@', 'ada@example', '@example.com', 'a b@example.com'],
  dateOfBirth: [
    '1985-12-10',
    '2000-02-29',
    '1900-02-29',
    '1985-13-01',
    '1985-02-30',
    '2030-01-01',
    '2026-11-23',
    '85-12-10',
  ],
  phone: [
    '+1 (217) 555-0100',
    '+12175550100',
    '+44 (0)20 7946 0018',
    '+44 20 7946 0018',
    '2175550100',
    '+0123',
    '+1 555',
  ],
  routingNumber: ['021000021', '021000022', '21000021', '0210000210', '02100002a'],
  iban: ['DE89 3704 0044 0532 0130 00', 'DE89370400440532013001', 'XX00'],
  swiftBic: ['DEUTDEFF', 'deut deff 500', 'DEUT'],
  country: ['US', 'us', 'USA', 'XX'],
  postcode: ['62701', ''],
  state: ['IL'],
  accountNumber: ['000123456789', ''],
  postalCode: ['62701'],
  currency: ['USD', 'usd', 'XXX1'],
};

describe('fast rules agree with the zod schemas they mirror', () => {
  const schemas = clientSchemas('2026-11-23');
  for (const kind of ['compliance', 'paymentDetail'] as const) {
    it(`${kind}: every text a fast rule accepts, zod accepts with the same value`, () => {
      const shape = schemas[kind].shape as Record<string, z.ZodType>;
      let decided = 0;
      for (const [field, rule] of Object.entries(schemas.fast[kind])) {
        if (rule === undefined) continue;
        for (const text of SAMPLES[field] ?? ['a', '', 'ok value']) {
          const fast = rule(text);
          const parsed = shape[field]!.safeParse(text);
          if (fast === undefined) continue;
          decided++;
          expect({ field, text, success: parsed.success, data: parsed.data }).toEqual({
            field,
            text,
            success: true,
            data: fast,
          });
        }
      }
      expect(decided).toBeGreaterThan(10);
    });
  }

  it('the date of birth, phone and routing rules are fast ones, and refuse what zod refuses', () => {
    const rules = clientSchemas('2026-11-23').fast;
    expect(rules.compliance.dateOfBirth!('1985-12-10')).toBe('1985-12-10');
    for (const text of ['1900-02-29', '1985-02-30', '2030-01-01'])
      expect(rules.compliance.dateOfBirth!(text)).toBe(undefined);
    expect(rules.compliance.phone!('+1 (217) 555-0100')).toBe('+12175550100');
    expect(rules.compliance.phone!('2175550100')).toBe(undefined);
    expect(rules.paymentDetail.routingNumber!('021000022')).toBe(undefined);
  });

  it('only plain schemas are plain: a transform, a pipe or a refinement is left to zod', () => {
    expect(plainAccept(z.string().transform((s) => s.trim()))).toBe(undefined);
    expect(plainAccept(z.string().refine((s) => s !== 'x'))).toBe(undefined);
    expect(plainAccept(z.url())).toBe(undefined);
    expect(plainAccept(z.string().pipe(z.string()))).toBe(undefined);
    expect(plainAccept(z.string().min(2))!('a')).toBe(false);
    expect(plainAccept(z.string().regex(/^a+$/g))!('aa')).toBe(true);
    expect(plainAccept(z.string().regex(/^a+$/g))!('aa')).toBe(true);
  });

  it("the spec's request bodies: the plain parse gives zod's output (key order too), or leaves it to zod", () => {
    const payer = {
      phone: '+12175550100',
      clientUserId: 'p-1',
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      beneficiaryType: 'individual',
      dateOfBirth: '1985-12-10',
      addressLine1: '12 Analytical Way',
      city: 'Springfield',
      state: 'IL',
      postcode: '62701',
      country: 'US',
      nationality: 'US',
      ssn: '123-45-6789',
      addressLine2: 'Suite 1',
    };
    // Key order too: the body goes on the wire as it is, and a service that honours Idempotency-Key compares the
    // body of a repeated key byte for byte, an earlier version's included.
    const fast = specBodies.compliance(byPlace(complianceRequest, payer));
    expect(JSON.stringify(fast)).toBe(JSON.stringify(complianceRequest.safeParse(payer)));
    const { ssn: _, ...withoutSsn } = payer;
    expect(specBodies.compliance(byPlace(complianceRequest, withoutSsn))).toEqual(
      complianceRequest.safeParse(withoutSsn),
    );
    expect(specBodies.compliance(byPlace(complianceRequest, { ...payer, country: 'USA' })).success).toBe(false);
    const detail = {
      currency: 'USD',
      bankName: 'First Midwest Bank',
      accountName: 'Ada Lovelace',
      beneficiaryType: 'individual',
      addressLine1: '12 Analytical Way',
      city: 'Springfield',
      country: 'US',
      dateOfBirth: '1985-12-10',
      postalCode: '62701',
      accountNumber: '000123456789',
      routingNumber: '021000021',
      accountType: 'checking',
    };
    expect(JSON.stringify(specBodies.paymentDetail(byPlace(paymentDetailRequest, detail)))).toBe(
      JSON.stringify(paymentDetailRequest.safeParse(detail)),
    );
    expect(specBodies.paymentDetail(byPlace(paymentDetailRequest, { ...detail, accountType: 'other' }))).toEqual(
      paymentDetailRequest.safeParse({ ...detail, accountType: 'other' }),
    );
  });

  it('leaves an object with more to it than its keys to zod: a refinement of the whole, a catchall', () => {
    const plain = z.object({ a: z.string(), b: z.string().optional() });
    expect(plainValues(plain)?.(['x', undefined])).toEqual({ a: 'x' });
    for (const more of [plain.refine((v) => v.a !== v.b), plain.loose(), plain.strict()]) {
      expect(plainValues(more)).toBeUndefined();
    }
  });
});
