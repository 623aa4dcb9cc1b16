import type { z } from 'zod';
import type { Readers } from '../core/advice.js';
import { fieldId } from '../rows/layout.js';
import type { FastRule } from './plainChecks.js';
import { BLANK, type RowCells, TEXT, UNUSABLE } from './rowCells.js';
import { type OrderedIssue, withValue } from './textChecks.js';

// Each field of a row judged by its own rule: a fast rule for the cells it certainly accepts, zod for the others.

// Issues about absent fields have no cell to sit at: they come after every cell's issue, in field order.
const AFTER_ALL_CELLS = Number.MAX_SAFE_INTEGER;

/** One field's check, worked out once per run: its schema, its fast rule, and whether it is required. */
export interface FieldCheck {
  name: string;
  id: number;
  schema: z.ZodType;
  fast: FastRule | undefined;
  required: boolean;
  /** Its cells hold one of a few codes or choices: zod's verdict on each text is remembered. */
  repeating: boolean;
}

export function fieldChecks(
  object: z.ZodObject,
  fields: readonly string[],
  fast: Readonly<Record<string, FastRule | undefined>>,
  required: readonly string[],
): FieldCheck[] {
  const shape = object.shape as Record<string, z.ZodType>;
  return fields.map((name) => ({
    name,
    id: fieldId(name),
    schema: shape[name]!,
    fast: fast[name],
    required: required.includes(name),
    repeating: REPEATING.has(name),
  }));
}

export interface CheckFieldsOptions {
  /** By check: the field id of the cell that gives the field (a `bank*` override); the field's own when absent. */
  from?: readonly number[];
  /**
   * By check: fields not to call "required" when absent, their cell (or the payer's) reported already. When
   * absent, the fields whose own cell was unusable.
   */
  quiet?: readonly boolean[];
  /** By check: values given already (a payment detail's, from the payer): those fields are not checked here. */
  given?: readonly (string | undefined)[] | undefined;
  /** How to name a field with no cell at all: its name, or `paymentDetails[0].bankName` inside a JSONL entry. */
  absentColumn: (field: string) => string;
}

/**
 * Runs each field's own schema on its cell, so every field is judged (a row reports every issue, not only the
 * first) and the valid ones land in `values` normalised, by check, even when others fail. A cell a field's fast
 * rule accepts needs no parse by its schema. `readers`: where the messages are read (a value is echoed as they allow).
 */
export function checkFields(
  checks: readonly FieldCheck[],
  row: RowCells,
  options: CheckFieldsOptions,
  values: (string | undefined)[],
  readers: Readers = 'terminal',
): OrderedIssue[] {
  const issues: OrderedIssue[] = [];
  const { from, quiet, given } = options;
  for (let k = 0; k < checks.length; k++) {
    if (given?.[k] !== undefined) continue;
    const check = checks[k]!;
    const id = from === undefined ? check.id : from[k]!;
    const state = id < 0 ? -1 : row.state[id];
    if (state !== TEXT) {
      if (check.required && !(quiet === undefined ? state === UNUSABLE : quiet[k])) {
        // A required field left blank is named by its column as written.
        const blank = state === BLANK;
        issues.push({
          column: blank ? row.column(id) : options.absentColumn(check.name),
          message: 'is required',
          order: blank ? row.order(id) : AFTER_ALL_CELLS,
        });
      }
      continue;
    }
    const text = row.text[id]!;
    const quick = check.fast?.(text);
    if (quick !== undefined) {
      values[k] = quick;
      continue;
    }
    const parsed = check.repeating ? remembered(check.schema, text) : check.schema.safeParse(text);
    if (parsed.success) {
      values[k] = String(parsed.data);
    } else {
      const message = parsed.error.issues[0]?.message ?? 'is not valid';
      issues.push({
        column: row.column(id),
        message: withValue(message, check.name, text, readers),
        order: row.order(id),
      });
    }
  }
  return issues;
}

/** Fields whose cells hold one of a handful of codes or choices, the same few values row after row. */
const REPEATING: ReadonlySet<string> = new Set([
  'beneficiaryType',
  'country',
  'nationality',
  'currency',
  'accountType',
  'rails',
]);
/** Verdicts of those fields' schemas by text; a few hundred texts each at most, whatever the file. */
const verdicts = new WeakMap<z.ZodType, Map<string, z.ZodSafeParseResult<unknown>>>();
const MAX_REMEMBERED = 256;

/** A schema's verdict on a text, remembered: a file checks `US` and `individual` on every row, to the same end. */
function remembered(schema: z.ZodType, text: string): z.ZodSafeParseResult<unknown> {
  let known = verdicts.get(schema);
  if (known === undefined) {
    known = new Map();
    verdicts.set(schema, known);
  }
  let verdict = known.get(text);
  if (verdict === undefined) {
    verdict = schema.safeParse(text);
    if (known.size < MAX_REMEMBERED) known.set(text, verdict);
  }
  return verdict;
}
