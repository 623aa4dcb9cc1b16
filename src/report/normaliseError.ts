/**
 * Turns one error item into the shape it shares with others, so the "most frequent errors" chart groups
 * `email: must be an e-mail address, got "a@"` with `email: ... got "b@"`. Also drops the row's own
 * clientUserId and identifiers the server echoes, so a chart label never names one payer.
 */
export function normaliseError(message: string, clientUserId?: string): string {
  let text = message.replace(/^'(?=[=+\-@\t\r])/, '');
  if (clientUserId) text = text.split(clientUserId).join('<id>');
  return text
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/(^|[\s(:=])'(?:[^'\\]|\\.)*'/g, "$1'…'")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
    .replace(/\b(lines?) \d+/g, '$1 N')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The items of a results.csv `error` cell (several problems of one row are joined by ` | `). */
export function splitErrorCell(cell: string): string[] {
  return cell
    .split(' | ')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Undoes results.csv's formula guard (`'=...`), which is for spreadsheets, not for people reading a page. */
export function unguard(cell: string): string {
  return cell.replace(/^'(?=[=+\-@\t\r])/, '');
}
