// A spreadsheet runs a cell as a formula when it starts with `=`, `@`, a tab or CR, or `+`/`-`. After a sign, only a
// number or a phone number is left alone (`-5`, `+12175550100`, `+1 (217) 555-0100`): digits, spaces, parentheses, dots
// and dashes can at most compute a number, while a letter or another operator can call a function
// (`-2+3+cmd|' /C calc'!A0`, `+1+HYPERLINK(...)`). The part before the first digit holds no digit, so the check is
// linear however long the cell. A value that already starts with `'` before a formula gets another, so that reading
// back takes off exactly the one added.
const STARTS_A_FORMULA = String.raw`(?:[=@\t\r]|[+-](?![\s().-]*\d[\d\s().-]*$))`;
const FORMULA = new RegExp(`^'*${STARTS_A_FORMULA}`);
const GUARDED = new RegExp(`^''*${STARTS_A_FORMULA}`);

/**
 * Guards a cell of a CSV file the tool writes (results.csv, status.csv, the failed and pending files) against
 * CSV/formula injection: a cell that a spreadsheet would run as a formula gets a leading `'`, which spreadsheets show
 * as text.
 */
export function csvSafe(value: string): string {
  // Only a cell starting with one of `'=@+-`, a tab or CR can be one: most cells are told by their first character.
  const first = value.charCodeAt(0); // NaN for an empty cell
  const may =
    first === 39 || first === 61 || first === 64 || first === 43 || first === 45 || first === 9 || first === 13;
  return may && FORMULA.test(value) ? `'${value}` : value;
}

/** The inverse of csvSafe, for a file of ours read back: the `'` it put before a formula character goes. */
export function csvUnguard(value: string): string {
  return GUARDED.test(value) ? value.slice(1) : value;
}
