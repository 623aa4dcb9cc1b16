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
}

/**
 * The file as the CLI reads it, read once to its end (an encoding is known only then). Nothing of its cells is kept;
 * a file the tool cannot read has no facts (its check says why).
 */
export async function fileFacts(path: string): Promise<FileFacts> {
  try {
    const input = await openInput(path);
    for await (const _record of input.records) {
      // read through: the encoding and the warnings of a whole reading are known at the end
    }
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
