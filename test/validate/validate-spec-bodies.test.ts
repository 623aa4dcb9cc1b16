import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { complianceRequest, paymentDetailRequest } from '../../src/core/schemas.js';
import { specBodies } from '../../src/validate/clientSchemas.js';

// A row's checked values reach the spec's schemas by their key's place in the shape. The plain parse of them must
// give zod's own verdict and output (key order too) for any mix of values given, missing and wrong.

const GOOD: Record<string, string> = {
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
  postalCode: '62701',
  country: 'US',
  nationality: 'US',
  phone: '+12175550100',
  ssn: '123-45-6789',
  currency: 'USD',
  bankName: 'First Midwest Bank',
  accountName: 'Ada Lovelace',
  accountNumber: '000123456789',
  routingNumber: '021000021',
  accountType: 'checking',
  rails: 'local',
};
const WRONG = ['', 'x'.repeat(300), 'USA', 'not-an-email', '2030-02-30', 'other'];

let seed = 7;
const random = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};

function agrees(schema: z.ZodObject, parse: (values: (string | undefined)[]) => z.ZodSafeParseResult<unknown>) {
  const keys = Object.keys(schema.shape);
  let accepted = 0;
  for (let round = 0; round < 400; round++) {
    const values = keys.map((key) => {
      const draw = random();
      if (draw < 0.15) return undefined;
      if (draw < 0.2) return WRONG[Math.floor(random() * WRONG.length)];
      return GOOD[key] ?? 'some text';
    });
    const body = Object.fromEntries(keys.flatMap((key, i) => (values[i] === undefined ? [] : [[key, values[i]]])));
    const plain = parse(values);
    const zod = schema.safeParse(body);
    expect(plain.success).toBe(zod.success);
    if (plain.success) {
      accepted++;
      expect(JSON.stringify(plain.data)).toBe(JSON.stringify(zod.data));
    } else expect(plain.error.issues).toEqual(zod.error!.issues);
  }
  return accepted;
}

describe('the spec bodies from values by place', () => {
  it('compliance: the same verdict and body as zod', () => {
    expect(agrees(complianceRequest, specBodies.compliance)).toBeGreaterThan(10);
  });
  it('payment detail: the same verdict and body as zod', () => {
    expect(agrees(paymentDetailRequest, specBodies.paymentDetail)).toBeGreaterThan(10);
  });
});
