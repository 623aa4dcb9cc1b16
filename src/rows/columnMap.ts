import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { fieldForColumn, normalizeHeader } from './fieldForColumn.js';

/** `--map`: the user's column (normalised) -> the field name they gave for it. */
export type ColumnMap = ReadonlyMap<string, string>;

/**
 * Reads `--map FILE`: JSON `{"Their column": "fieldName"}`. Every field name must be one a payer or bank-details
 * column can have (matched like headers, so `date_of_birth` will do); all unknown ones are named at once (exit 2).
 */
export function loadColumnMap(path: string, cwd: string): ColumnMap {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, path), 'utf8');
  } catch (error) {
    throw new ConfigError(`--map: cannot read ${path} (${(error as NodeJS.ErrnoException).code})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    throw new ConfigError(`--map: ${path} is not valid JSON: expected {"Their column": "fieldName", ...}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(`--map: ${path} must be a JSON object like {"Their column": "fieldName"}`);
  }
  const map = new Map<string, string>();
  const notText: string[] = [];
  const unknown: string[] = [];
  for (const [column, field] of Object.entries(value as Record<string, unknown>)) {
    if (typeof field !== 'string') {
      notText.push(column);
      continue;
    }
    const known = fieldForColumn(field, 'payers') ?? fieldForColumn(field, 'bank-details');
    if (known === undefined || known === 'error' || known === 'paymentDetails') unknown.push(field);
    else map.set(normalizeHeader(column), known);
  }
  const problems = [
    ...(notText.length
      ? [`the value for ${notText.map((c) => JSON.stringify(c)).join(', ')} must be a field name (a string)`]
      : []),
    ...(unknown.length
      ? [
          `unknown field name${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => JSON.stringify(f)).join(', ')} (see \`payer-onboard template\` for every field)`,
        ]
      : []),
  ];
  if (problems.length > 0) throw new ConfigError(problems.map((p) => `--map: ${p}`).join('\n'));
  return map;
}
