import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { expect, test } from 'vitest';
import { toE164 } from '../../src/validate/textChecks.js';

// toE164 answers a North American number without libphonenumber (which spends most of a row's check finding which
// of 25 countries it is): it must be exactly what libphonenumber would have said, for every area code.
test('a +1 number with a real area code reads as libphonenumber reads it', () => {
  for (let area = 200; area <= 999; area++) {
    for (const rest of ['5550100', '0000000', '9999999', `${area}1234`.slice(-7)]) {
      const typed = `+1 (${area}) ${rest.slice(0, 3)}-${rest.slice(3)}`;
      const digits = `+1${area}${rest}`;
      const parsed = parsePhoneNumberFromString(digits);
      expect(toE164(typed), typed).toBe(parsed?.isPossible() ? parsed.number : digits);
    }
  }
});

test('what is not such a number still goes through libphonenumber', () => {
  expect(toE164('+1 1 217 555 0100')).toBe(parsePhoneNumberFromString('+112175550100')?.number ?? '+112175550100');
  expect(toE164('+44 (0)20 7946 0958')).toBe('+442079460958');
});
