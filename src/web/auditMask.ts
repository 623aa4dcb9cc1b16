import { mapHeader } from '../rows/columns.js';
import { kindOf } from './mapSection.js';
import { sentHeader } from './uploadTable.js';

/** What stands for a personal value in the audit trail. */
const MASKED = '•••';

/** Bank numbers: the trail keeps their last 4 characters, as the service shows a stored account's. */
const BANK_NUMBERS: ReadonlySet<string> = new Set([
  'accountNumber',
  'iban',
  'routingNumber',
  'sortCode',
  'bsbNumber',
  'ifsc',
  'ncc',
  'branchCode',
  'bankCode',
  'ribNumber',
]);

/** Fields that say nothing of a person: the trail keeps them as written (unless a value looks like a person's). */
const PLAIN: ReadonlySet<string> = new Set([
  'clientUserId',
  'currency',
  'rails',
  'accountType',
  'documentType',
  'beneficiaryType',
  'bankBeneficiaryType',
  'bankName',
  'swiftBic',
  'agreementCompleted',
]);

/**
 * A cell's value as the audit trail keeps it: a bank number by its last 4 characters (`•••6789`, fully masked when
 * it has fewer than 8), a field that says nothing of a person as written, and anything else (names, e-mail, phone,
 * dates of birth, addresses, identity numbers, a column the tool does not read) masked whole, so that `forget` leaves
 * nothing of the person in the trail but their id. A blank stays blank: that a cell was filled says nothing.
 */
export function maskValue(field: string | undefined, value: string): string {
  const text = value.trim();
  if (text === '') return '';
  if (field !== undefined && BANK_NUMBERS.has(field)) {
    const chars = text.replace(/[\s.-]/g, '');
    return chars.length >= 8 ? `${MASKED}${chars.slice(-4)}` : MASKED;
  }
  // A slipped column puts an e-mail or a number under a plain field: such a value is masked there too.
  const looksPersonal = text.includes('@') || (text.match(/\d/g)?.length ?? 0) >= 6;
  if (field !== undefined && PLAIN.has(field) && !looksPersonal)
    return text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return MASKED;
}

/** The field each column of an upload feeds, with the person's mapping (undefined: a column the tool does not read). */
export function columnFields(
  header: readonly string[],
  mapping: Readonly<Record<string, string>>,
): Array<string | undefined> {
  const fields = mapHeader(sentHeader(header, mapping), kindOf(header)).fields;
  return header.map((_, i) => fields[i]);
}
