import { describe, expect, it } from 'vitest';
import { scrubServerText } from '../../src/execute/scrubServerText.js';

const KEY = 'Test-Key-5f1d2c3b4a';
const payer = {
  clientUserId: 'payer-7',
  email: 'ada.lovelace@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  beneficiaryType: 'individual',
  dateOfBirth: '1985-12-10',
  city: 'Springfield',
  state: 'IL',
  postcode: '62701',
  country: 'US',
  phone: '+12175550100',
  ssn: '123-45-6789',
};
const account = { bankName: 'First Midwest Bank', accountNumber: '000123456789', currency: 'USD' };
const scrub = (text: string) => scrubServerText(text, [payer, [account]], KEY);

describe('scrubServerText: the row in any spelling', () => {
  it.each([
    ['ssn 123-45-6789 taken', 'ssn [redacted] taken'],
    ['ssn 123 45 6789 taken', 'ssn [redacted] taken'],
    ['ssn 123456789 taken', 'ssn [redacted] taken'],
    ['ssn 123.45.6789, taken', 'ssn [redacted], taken'],
    ['phone +1 (217) 555-0100 in use', 'phone [redacted] in use'],
    ['phone 12175550100 in use', 'phone [redacted] in use'],
    ['phone (217) 555-0100 in use', 'phone [redacted] in use'],
    ['born 1985-12-10', 'born [redacted]'],
    ['born 12/10/1985', 'born [redacted]'],
    ['born 10.12.1985', 'born [redacted]'],
    ['born 19851210', 'born [redacted]'],
    ['key test-key-5f1d2c3b4a bad', 'key [redacted] bad'],
    ['key TEST-KEY-5F1D2C3B4A bad', 'key [redacted] bad'],
    ['auth Bearertest_key_5f1d2c3b4a', 'auth Bearer[redacted]'],
    ['ref acct000123456789x', 'ref acct[redacted]x'],
    ['account 0001 2345 6789 closed', 'account [redacted] closed'],
    ['ADA LOVELACE of SPRINGFIELD', '[redacted] [redacted] of [redacted]'],
    ['zip 62701 unknown', 'zip [redacted] unknown'],
    ['at First-Midwest-Bank', 'at [redacted]'],
  ])('%s', (text, scrubbed) => {
    expect(scrub(text)).toBe(scrubbed);
  });

  it('unpadded dates too', () => {
    expect(scrubServerText('born 1/5/1985', [{ dateOfBirth: '1985-01-05' }], KEY)).toBe('born [redacted]');
  });

  it('keeps codes, and words that merely hold a short value', () => {
    expect(scrub('payer-7 (US, individual, USD) in IL: Adamant')).toBe('payer-7 (US, individual, USD) in IL: Adamant');
  });
});

describe('scrubServerText: anything shaped like personal data, whoever it belongs to', () => {
  it.each([
    ['ssn 987-65-4321 is taken', 'ssn [redacted] is taken'],
    ['card 4111 1111 1111 1111 declined', 'card [redacted] declined'],
    ['account 55501234567 exists', 'account [redacted] exists'],
    ['mail other.person@example.org exists', 'mail [redacted] exists'],
    ['call +44 20 7946 0958', 'call [redacted]'],
  ])('%s', (text, scrubbed) => {
    expect(scrubServerText(text, [], KEY)).toBe(scrubbed);
  });

  it('keeps ids, short numbers and codes the reader needs', () => {
    const text = 'user 3f2a1c00-1234-5678-9012-123456789abc: 3 errors, HTTP 400, rule 1234567';
    expect(scrubServerText(text, [], KEY)).toBe(text);
  });

  it('is one line and at most 300 characters; nothing left is undefined', () => {
    expect(scrubServerText('a\nb\u0000c', [], KEY)).toBe('a b c');
    expect(scrubServerText('x'.repeat(5000), [], KEY)).toHaveLength(300);
    expect(scrubServerText(' \n ', [], KEY)).toBeUndefined();
    expect(scrubServerText(undefined, [], KEY)).toBeUndefined();
  });

  it('scrubs before it cuts: a value across the 300th character is not half kept', () => {
    // Cut first, these would end in "4111 1111 1111" and "123-45-67"; scrubbed first, no digit is left.
    const card = `${'x'.repeat(285)} 4111 1111 1111 1111`;
    expect(scrubServerText(card, [], KEY)).toBe(`${'x'.repeat(285)} [redacted]`);
    const ssn = scrubServerText(`${'x'.repeat(295)} 123-45-6789`, [], KEY);
    expect(ssn).toHaveLength(300);
    expect(ssn).not.toMatch(/\d/);
  });
});

describe('scrubServerText: the key base64-encoded', () => {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const b64url = (text: string) => Buffer.from(text).toString('base64url');
  it.each([
    ['the key', `echo ${b64(KEY)} back`],
    ['the key, base64url', `echo ${b64url(KEY)} back`],
    ['`key:` in a Basic header', `header Basic ${b64(`${KEY}:`)} refused`],
    ['`user:key` in a Basic header', `header Basic ${b64(`api:${KEY}`)} refused`],
    ['`ab:key`, base64url', `header Basic ${b64url(`ab:${KEY}`)} refused`],
    ['the key inside a longer encoded text', `token ${b64(`{"k":"${KEY}","t":1}`)} refused`],
  ])('%s', (_what, text) => {
    const out = scrub(text)!;
    expect(out).toContain('[redacted]');
    expect(out).toMatch(/^(echo|header Basic|token) \[redacted\] (back|refused)$/);
  });

  it('keeps encoded text that is not the key, and a key too short to tell from chance text', () => {
    const other = `echo ${Buffer.from('another-key-0000000').toString('base64')} back`;
    expect(scrub(other)).toBe(other);
    expect(scrubServerText('echo YWJj back', [], 'abc')).toBe('echo YWJj back');
  });
});
