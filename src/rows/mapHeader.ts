import { REQUIRED_PAYER_FIELDS, REQUIRED_PAYMENT_DETAIL_FIELDS } from './fields.js';
import type { ColumnMap } from './columnMap.js';
import { fieldForColumn, type FileKind } from './fieldForColumn.js';

export { normalizeHeader } from './fieldForColumn.js';

export interface HeaderMapping {
  /** By header position: the catalog name the column means (`firstName`, `bankCity`, `error`, ...), or undefined. */
  fields: (string | undefined)[];
  /** Columns, as written, that mean nothing: the caller warns once and carries them through untouched. Blank names are left out. */
  unknown: string[];
  /** Fields named by more than one column (an error: which value would win is a guess). Columns as written, in header order. */
  duplicates: { field: string; columns: string[] }[];
  /** Required fields with no column at all (the file is rejected before any row), by field name. */
  missing: string[];
}

// A bank-details row has no payer to default from, so every required payment-detail field needs its own column.
const REQUIRED_COLUMNS: Record<FileKind, readonly string[]> = {
  payers: REQUIRED_PAYER_FIELDS,
  'bank-details': ['clientUserId', ...REQUIRED_PAYMENT_DETAIL_FIELDS],
};

// `error` is ignored on input; a failed file fed back twice may carry it twice, and that hurts nobody.
const MAY_REPEAT = new Set(['error']);

export function mapHeader(header: string[], kind: FileKind, map?: ColumnMap): HeaderMapping {
  const fields = header.map((column) => fieldForColumn(column, kind, map));
  const unknown = header.filter((column, i) => fields[i] === undefined && column.trim() !== '');

  const columnsByField = new Map<string, string[]>();
  header.forEach((column, i) => {
    const field = fields[i];
    if (field === undefined) return;
    columnsByField.set(field, [...(columnsByField.get(field) ?? []), column]);
  });
  const duplicates = [...columnsByField]
    .filter(([field, columns]) => columns.length > 1 && !MAY_REPEAT.has(field))
    .map(([field, columns]) => ({ field, columns }));

  const missing = REQUIRED_COLUMNS[kind].filter((field) => !columnsByField.has(field));
  return { fields, unknown, duplicates, missing };
}
