import { afterEach, beforeEach, expect, it } from 'vitest';
import { harness, PAYER_HEADER, payerRow } from '../helpers/runHarness.js';

// The web page guesses a date format where the dates read one way only, and shows its guess; a terminal's run never
// guesses: a day-first date is refused, naming the option that reads it, until the operator gives it.
let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

it('dates that can only be read day first are refused without --date-format, and read with it', async () => {
  const rows = ['x-1', 'x-2'].map((id) => payerRow(id, { dateOfBirth: '14/07/1982' }));
  const input = h.tmp.write('payers.csv', `${PAYER_HEADER}\n${rows.join('\n')}\n`);
  const unread = await h.run({ inputs: [input], command: 'validate' });
  expect(unread.summary.exitCode).toBe(1);
  expect(unread.results.map((r) => r.error)).toEqual([
    'dateOfBirth: must be YYYY-MM-DD, got "99/99/9999" (masked as personal data: digits shown as 9, letters as a): written day first, --date-format DD/MM/YYYY reads it',
    'dateOfBirth: must be YYYY-MM-DD, got "99/99/9999" (masked as personal data: digits shown as 9, letters as a): written day first, --date-format DD/MM/YYYY reads it',
  ]);
  const read = await h.run({ inputs: [input], command: 'validate', dateFormat: 'DD/MM/YYYY' });
  expect(read.results.map((r) => r.outcome)).toEqual(['ok', 'ok']);
});
