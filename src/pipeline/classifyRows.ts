import { InputError } from '../errors.js';
import type { DuplicateIds } from './DuplicateIds.js';
import type { OpenedInput, RawRecord } from '../input/InputFile.js';
import { fieldForColumn } from '../rows/fieldForColumn.js';
import { mapHeader } from '../rows/mapHeader.js';
import type { BankRowResult, PayerRowResult, RowIssue } from '../types.js';
import { validateBankRow } from '../validate/validateBankRow.js';
import { validatePayerRow } from '../validate/validatePayerRow.js';

export type RowKind = 'payers' | 'bank-details';

export interface ClassifiedRow {
  record: RawRecord;
  kind: RowKind;
  result: PayerRowResult | BankRowResult;
}

/**
 * Checks a CSV header before any row: a required column missing entirely rejects the file (exit 2), naming
 * the columns; unknown columns become one warning each (they are carried through to the failed file untouched).
 */
export function checkHeader(input: OpenedInput, kind: RowKind): string[] {
  if (input.header === undefined) return [];
  const mapping = mapHeader(input.header, kind, input.reading?.columns);
  if (mapping.missing.length > 0) {
    const s = mapping.missing.length === 1 ? '' : 's';
    throw new InputError(
      input.file.name,
      `missing required column${s} ${mapping.missing.join(', ')} (header: ${input.header.join(', ')})`,
      { line: 1 },
    );
  }
  if (mapping.duplicates.length > 0) {
    throw new InputError(
      input.file.name,
      `two columns mean the same field: ${mapping.duplicates.map(describeDuplicate).join('; ')}`,
      { line: 1 },
    );
  }
  return mapping.unknown.map(
    (column) =>
      `${input.file.name}: column "${column}" is not a known field; it is ignored and carried through to the failed file`,
  );
}

/**
 * A file of bank rows given as an input on its own: `clientUserId` and every column a bank row needs, and none
 * of the payer's own (e-mail, names, phone, SSN). Its rows go to payers registered already.
 */
export function isBankFile(input: OpenedInput): boolean {
  if (input.header === undefined) return false;
  const asBank = mapHeader(input.header, 'bank-details', input.reading?.columns);
  if (asBank.missing.length > 0) return false;
  const asPayers = mapHeader(input.header, 'payers', input.reading?.columns);
  return PAYER_ONLY.every((field) => !asPayers.fields.includes(field));
}

const PAYER_ONLY = ['email', 'firstName', 'lastName', 'phone', 'ssn', 'nationality'];

function describeDuplicate(d: unknown): string {
  if (typeof d === 'string') return d;
  if (d && typeof d === 'object') {
    const o = d as { field?: string; columns?: string[] };
    if (o.field && o.columns) return `${o.columns.map((c) => `"${c}"`).join(' and ')} (${o.field})`;
  }
  return JSON.stringify(d);
}

/** Turns each raw record into a validated row or an invalid one with every issue; never throws for a row. */
export async function* classifyRows(
  input: OpenedInput,
  kind: RowKind,
  options: { defaultAgreementCompleted: boolean; seen: DuplicateIds; today: Date },
): AsyncGenerator<ClassifiedRow> {
  for await (const record of input.records) {
    yield { record, kind, result: classify(record, kind, input, options) };
  }
}

function classify(
  record: RawRecord,
  kind: RowKind,
  input: OpenedInput,
  options: { defaultAgreementCompleted: boolean; seen: DuplicateIds; today: Date },
): PayerRowResult | BankRowResult {
  const source = input.file.name;
  const { columns, dateFormat } = input.reading ?? {};
  if (record.problem) return { ok: false, issues: [record.problem] };
  if (kind === 'bank-details') return validateBankRow(record.cells, { today: options.today, columns, dateFormat });
  const result = validatePayerRow(record.cells, {
    defaultAgreementCompleted: options.defaultAgreementCompleted,
    today: options.today,
    columns,
    dateFormat,
  });
  const id = result.clientUserId;
  if (id === undefined) return result;
  // The service may treat `Acme-1` and `ACME-1` as one payer, or as two with one SSN: either way one is a mistake.
  const earlier = options.seen.check(id.trim().toLowerCase(), source, record.line);
  if (earlier === undefined) return result;
  const column =
    record.cells.find((c) => fieldForColumn(c.column, 'payers', columns) === 'clientUserId')?.column ?? 'clientUserId';
  const where = earlier.startsWith(`${source}:`) ? `line ${earlier.slice(source.length + 1)}` : earlier;
  const issue: RowIssue = {
    column,
    message: `"${id}" appears again: the same payer is already on ${where} (another payer needs its own clientUserId; a repeat can be deleted)`,
  };
  return result.ok
    ? {
        ok: false,
        clientUserId: id,
        issues: [issue],
        completedSteps: result.completedSteps,
        ...(result.complianceDigest === undefined ? {} : { complianceDigest: result.complianceDigest }),
        ...(result.origin === undefined ? {} : { origin: result.origin }),
      }
    : { ...result, issues: [...result.issues, issue] };
}

export function formatIssues(issues: RowIssue[]): string[] {
  return issues.map((issue) => `${issue.column}: ${issue.message}`);
}

/**
 * What `validate` prints first (issue 5): which column was read as which field, and which were ignored, so a team
 * with its own column names sees at once whether `DOB` and `Zip` were understood.
 */
export function describeMapping(input: OpenedInput, kind: RowKind): string {
  if (input.header === undefined) return `${input.file.name}: JSON keys are read by their names\n`;
  const mapping = mapHeader(input.header, kind, input.reading?.columns);
  const used = input.header.flatMap((column, i) => {
    const field = mapping.fields[i];
    return field === undefined || field === 'error' || field === 'completedSteps' ? [] : [`  ${column} -> ${field}`];
  });
  const ignored = mapping.unknown.length > 0 ? mapping.unknown.map((c) => `"${c}"`).join(', ') : '(none)';
  return `${input.file.name}: columns read as\n${used.join('\n')}\n${input.file.name}: columns ignored: ${ignored}\n`;
}
