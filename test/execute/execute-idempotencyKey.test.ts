import { describe, expect, it } from 'vitest';
import { canonicalJson, changedFields, fieldDigests, idempotencyKey } from '../../src/plan/identity.js';
import { complianceBody } from '../helpers/executeFixtures.js';

describe('idempotencyKey', () => {
  it('is a po- prefixed sha256, the same for the same step, payer and body whatever the key order', () => {
    const body = complianceBody();
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const key = idempotencyKey('compliance', 'payer-001', body);
    expect(key).toMatch(/^po-[0-9a-f]{64}$/);
    expect(idempotencyKey('compliance', 'payer-001', reordered)).toBe(key);
    expect(idempotencyKey('compliance', 'payer-001', { ...body, addressLine2: undefined })).toBe(key);
  });

  it('changes with the step, the payer and any value', () => {
    const body = complianceBody();
    const key = idempotencyKey('compliance', 'payer-001', body);
    expect(idempotencyKey('payment-details', 'payer-001', body)).not.toBe(key);
    expect(idempotencyKey('compliance', 'payer-002', body)).not.toBe(key);
    expect(idempotencyKey('compliance', 'payer-001', { ...body, city: 'Shelbyville' })).not.toBe(key);
  });

  it('is stable across runs (a pinned value)', () => {
    expect(canonicalJson({ b: [1, { d: 'x', c: null }], a: 'é' })).toBe('{"a":"é","b":[1,{"c":null,"d":"x"}]}');
    // A flat body: members sorted, undefined ones left out, other kinds as JSON writes them.
    expect(canonicalJson({ z: 'a"b', b: undefined, a: 1, m: null, k: true, '10': 'x', '2': 'y' })).toBe(
      '{"10":"x","2":"y","a":1,"k":true,"m":null,"z":"a\\"b"}',
    );
    expect(idempotencyKey('agreement', 'u1', { b: 1, a: 2 })).toBe(idempotencyKey('agreement', 'u1', { a: 2, b: 1 }));
  });

  it('field digests name the columns that changed, and digests of an older kind name none', () => {
    const body = complianceBody();
    const before = fieldDigests(body);
    expect(changedFields(before, body)).toEqual([]);
    expect(changedFields(before, { ...body, city: 'Shelbyville', email: 'new@example.com' }).sort()).toEqual([
      'city',
      'email',
    ]);
    // A journal written by an earlier version: two hex characters of SHA-256 a field, with no mark.
    expect(changedFields(before.slice(3), { ...body, city: 'Shelbyville' })).toEqual([]);
  });
});
