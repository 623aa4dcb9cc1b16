import type { Checked } from './textChecks.js';

const TRUE = new Set(['true', 'yes', 'y', '1']);
const FALSE = new Set(['false', 'no', 'n', '0']);

/** The `agreementCompleted` cell: true/false/yes/no/y/n/1/0 in any case (design.md §3). Blank is decided by the caller. */
export function parseAgreementCompleted(text: string): { ok: true; value: boolean } | Extract<Checked, { ok: false }> {
  const word = text.toLowerCase();
  if (TRUE.has(word)) return { ok: true, value: true };
  if (FALSE.has(word)) return { ok: true, value: false };
  return { ok: false, message: 'must be true/false, yes/no, y/n or 1/0' };
}
