import type { Cell, RowIssue } from '../types.js';
import type { ColumnMap } from './columnMap.js';
import { fieldForColumn, type Vocabulary } from './fieldForColumn.js';

/** One cell filed under the catalog name it means. `order` is its position in the row, for ordering issues. */
export interface FieldCell {
  column: string;
  value: unknown;
  order: number;
}

export interface CollectedCells {
  byField: Map<string, FieldCell>;
  /** Cells whose column means nothing in this vocabulary. */
  unknown: FieldCell[];
  /** Two filled cells for one field (JSONL `first_name` and `firstName` on one line). */
  repeated: (RowIssue & { order: number })[];
}

const isBlank = (value: unknown): boolean =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/**
 * Files a row's cells by field. `columnPrefix` names nested cells (`paymentDetails[0].`) so that an issue
 * points at the exact key. A blank repeat is no conflict, so the filled one wins.
 */
export function collectCells(
  cells: readonly Cell[],
  vocabulary: Vocabulary,
  columnPrefix = '',
  orderBase = 0,
  map?: ColumnMap,
): CollectedCells {
  const byField = new Map<string, FieldCell>();
  const unknown: FieldCell[] = [];
  const repeated: CollectedCells['repeated'] = [];
  cells.forEach(({ column, value }, i) => {
    const cell = { column: columnPrefix + column, value, order: orderBase + i };
    const field = fieldForColumn(column, vocabulary, map);
    if (field === undefined) {
      unknown.push(cell);
      return;
    }
    const earlier = byField.get(field);
    if (earlier === undefined || isBlank(earlier.value)) {
      byField.set(field, cell);
    } else if (!isBlank(value) && field !== 'error') {
      repeated.push({
        column: cell.column,
        message: `gives ${field} a second time (already given as "${earlier.column}")`,
        order: cell.order,
      });
    }
  });
  return { byField, unknown, repeated };
}
