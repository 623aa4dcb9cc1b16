/**
 * Guards a cell against CSV/formula injection: a spreadsheet runs a cell that starts with one of these
 * as a formula, so text we write from the server or from our own messages gets a leading `'`.
 */
export function csvSafe(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}
