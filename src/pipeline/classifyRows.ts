import { InputError } from '../errors.js';
import type { OpenedInput, RawRecord } from '../input/InputFile.js';
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

/** Where each clientUserId of the run was first seen, to name it when a later payer row repeats it. */
export type SeenIds = Map<string, string>;

/**
 * Checks a CSV header before any row: a required column missing entirely rejects the file (exit 2), naming
 * the columns; unknown columns become one warning each (they are carried through to the failed file untouched).
 */
export function checkHeader(input: OpenedInput, kind: RowKind): string[] {
  if (input.header === undefined) return [];
  const mapping = mapHeader(input.header, kind);
  if (mapping.missing.length > 0) {
    const s = mapping.missing.length === 1 ? '' : 's';
    throw new InputError(input.file.name, `missing required column${s} ${mapping.missing.join(', ')} (header: ${input.header.join(', ')})`, { line: 1 });
  }
  if (mapping.duplicates.length > 0) {
    throw new InputError(input.file.name, `two columns mean the same field: ${mapping.duplicates.map(describeDuplicate).join('; ')}`, { line: 1 });
  }
  return mapping.unknown.map((column) => `${input.file.name}: column "${column}" is not a known field; it is ignored and carried through to the failed file`);
}

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
  options: { defaultAgreementCompleted: boolean; seen: SeenIds; today: Date },
): AsyncGenerator<ClassifiedRow> {
  for await (const record of input.records) {
    yield { record, kind, result: classify(record, kind, input.file.name, options) };
  }
}

function classify(
  record: RawRecord,
  kind: RowKind,
  source: string,
  options: { defaultAgreementCompleted: boolean; seen: SeenIds; today: Date },
): PayerRowResult | BankRowResult {
  if (record.problem) return { ok: false, issues: [record.problem] };
  if (kind === 'bank-details') return validateBankRow(record.cells);
  const result = validatePayerRow(record.cells, { defaultAgreementCompleted: options.defaultAgreementCompleted, today: options.today });
  const id = result.clientUserId;
  if (id === undefined) return result;
  const earlier = options.seen.get(id);
  if (earlier === undefined) {
    options.seen.set(id, `${source}:${record.line}`);
    return result;
  }
  const column = record.cells.find((c) => c.column.toLowerCase().replace(/[\s_.-]/g, '') === 'clientuserid')?.column ?? 'clientUserId';
  const where = earlier.startsWith(`${source}:`) ? `line ${earlier.slice(source.length + 1)}` : earlier;
  const issue: RowIssue = { column, message: `"${id}" appears again: the same payer is already on ${where}` };
  return result.ok
    ? { ok: false, clientUserId: id, issues: [issue], completedSteps: result.completedSteps }
    : { ...result, issues: [...result.issues, issue] };
}

export function formatIssues(issues: RowIssue[]): string[] {
  return issues.map((issue) => `${issue.column}: ${issue.message}`);
}
