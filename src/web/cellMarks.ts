/** One problem of a row, at the cell it is about (by header position), or on the whole row when it names no column. */
export interface CellMark {
  column?: number;
  message: string;
}

/**
 * The problems in a results.csv `error` cell (`Email: must be an e-mail address | DOB: ...`), each at the cell of the
 * column it names. Messages name the column as the checked file's header wrote it; the longest such name that a
 * message starts with wins (`Date` and `Date of birth` both being columns).
 */
export function marksOf(error: string, header: readonly string[]): CellMark[] {
  if (error.trim() === '') return [];
  const byLength = header
    .map((column, index) => ({ column, index }))
    .filter(({ column }) => column.trim() !== '')
    .sort((a, b) => b.column.length - a.column.length);
  return error.split(' | ').map((part) => {
    const named = byLength.find(({ column }) => part.startsWith(`${column}: `));
    return named === undefined
      ? { message: part }
      : { column: named.index, message: part.slice(named.column.length + 2) };
  });
}
