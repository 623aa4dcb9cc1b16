import { openInput } from '../input/openInput.js';

/** What the tool finds in a file before any row is checked: the sheet, the header's row, the encoding, the separator. */
export interface FileFacts {
  /** xlsx: the sheet read, and every sheet of the workbook. */
  sheet?: string;
  sheets?: string[];
  /** The line (a sheet's row) the header is on: above it, a title or notes the tool skips. */
  headerLine?: number;
  /** CSV: the encoding it was read in, and the separator between cells. */
  encoding?: string;
  delimiter?: string;
  /** More rows than the page checks: the file was read no further. */
  tooManyRows?: true;
}

/**
 * The most rows the web page checks in one upload. A file of up to the upload limit can hold millions of short rows
 * (25 MB of `x` lines is 12 million), and each row refused costs its line in the results, the failed file and the log:
 * past this many the check would outlast its time limit. A hundred thousand payers is the largest run the tool is
 * measured at; a larger file goes in parts, or through the command line or the inbox, which take any number.
 */
export const UPLOAD_ROWS = 100_000;

/** What the upload page says of a file past `UPLOAD_ROWS`. */
export const tooManyRows = (name: string) =>
  `${name} has more than ${UPLOAD_ROWS.toLocaleString('en-US')} rows, the most this page checks at once: split it into files of ${UPLOAD_ROWS.toLocaleString('en-US')} rows or fewer and upload each.`;

/**
 * The file as the CLI reads it, read once to its end (an encoding is known only then), or to its row past `rowLimit`.
 * Nothing of its cells is kept; a file the tool cannot read has no facts (its check says why).
 */
export async function fileFacts(path: string, rowLimit = Number.POSITIVE_INFINITY): Promise<FileFacts> {
  try {
    const input = await openInput(path);
    let rows = 0;
    // Read through: the encoding and the warnings of a whole reading are known at the end.
    for await (const _record of input.records) if (++rows > rowLimit) return { tooManyRows: true };
    const { file, headerLine, dialect, sheets } = input;
    return {
      ...(file.sheet ? { sheet: file.sheet } : {}),
      ...(sheets && sheets.length > 1 ? { sheets } : {}),
      ...(headerLine !== undefined ? { headerLine } : {}),
      ...(file.encoding ? { encoding: file.encoding } : {}),
      ...(dialect ? { delimiter: dialect.delimiter } : {}),
    };
  } catch {
    return {};
  }
}

/** The facts as the check page says them, one `[term, words]` pair each. */
export function factLines(facts: FileFacts): Array<[string, string]> {
  const lines: Array<[string, string]> = [];
  if (facts.sheet) lines.push(['Sheet', facts.sheets ? `${facts.sheet} (of ${facts.sheets.join(', ')})` : facts.sheet]);
  if (facts.headerLine !== undefined)
    lines.push([
      'Header row',
      facts.headerLine > 1 ? `line ${facts.headerLine} (the lines above it are skipped)` : `line ${facts.headerLine}`,
    ]);
  if (facts.encoding) lines.push(['Encoding', facts.encoding]);
  if (facts.delimiter) lines.push(['Separator', facts.delimiter === '\t' ? 'tab' : `"${facts.delimiter}"`]);
  return lines;
}
