import type { CsvDialect } from './InputFile.js';

const CANDIDATES = [',', ';', '\t'] as const;

/**
 * Guesses the delimiter from the header line: the candidate that occurs most often outside quotes.
 * Spreadsheets in locales with a decimal comma export `;`, so this cannot be a fixed `,`.
 */
export function detectDialect(head: string, format: 'csv' | 'tsv', bom: boolean): CsvDialect {
  const text = head.charCodeAt(0) === 0xfeff ? head.slice(1) : head;
  let end = 0;
  let quoted = false;
  const counts = new Map<string, number>(CANDIDATES.map((c) => [c, 0]));
  for (; end < text.length; end++) {
    const ch = text[end]!;
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
  }
  const eol = text.slice(end, end + 2) === '\r\n' ? '\r\n' : '\n';
  if (format === 'tsv') return { delimiter: '\t', bom, eol };
  let delimiter = ',';
  let best = 0;
  for (const [candidate, count] of counts) {
    if (count > best) {
      best = count;
      delimiter = candidate;
    }
  }
  return { delimiter, bom, eol };
}
