/** A cell as the streaming reader gives it: its value and the number format of its style. */
export interface XlsxCell {
  value: unknown;
  numFmt?: string | undefined;
}

/** What a cell means to us: its text as the person sees it, or an Excel error (`#N/A`) that is that row's problem. */
export type CellText = { text: string } | { error: string };

/**
 * One spreadsheet cell as text (issue 5): text cells as typed; date cells `YYYY-MM-DD`; numbers the digits as
 * displayed, never in scientific notation (`12175550100`, not `1.21755E+10`), zero-padded where the column's format
 * pads them (`000000000` shows `021000021`); formulas by their result; TRUE/FALSE as `true`/`false`.
 */
export function xlsxCellText(cell: XlsxCell): CellText {
  const { value } = cell;
  if (value === null || value === undefined) return { text: '' };
  if (typeof value === 'string') return { text: value };
  if (typeof value === 'boolean') return { text: value ? 'true' : 'false' };
  if (typeof value === 'number')
    return { text: isDateFormat(cell.numFmt) ? dateText(serialToDate(value)) : numberText(value, cell.numFmt) };
  if (value instanceof Date) return { text: dateText(value) };
  const object = value as {
    richText?: { text?: string }[];
    formula?: string;
    result?: unknown;
    error?: string;
    text?: unknown;
    sharedString?: number;
  };
  if (Array.isArray(object.richText)) return { text: object.richText.map((run) => run.text ?? '').join('') };
  if (object.error !== undefined) return { error: String(object.error) };
  if (object.formula !== undefined || 'result' in object) {
    const result = object.result as unknown;
    if (result !== null && typeof result === 'object' && 'error' in result)
      return { error: String((result as { error: unknown }).error) };
    return xlsxCellText({ value: result, numFmt: cell.numFmt });
  }
  if (object.text !== undefined) return xlsxCellText({ value: object.text, numFmt: cell.numFmt }); // a hyperlink's shown text
  return { text: '' };
}

/** Excel's date formats use y, m, d (h, s for times); text in quotes and [colour]/[locale] parts do not count. */
function isDateFormat(format: string | undefined): boolean {
  if (!format) return false;
  return /[ymdhs]/i.test(
    format
      .replace(/\[[^\]]*]/g, '')
      .replace(/"[^"]*"/g, '')
      .replace(/\\./g, ''),
  );
}

/** A date cell's serial (days since 1899-12-30, the 1900 system) as a UTC date. */
function serialToDate(serial: number): Date {
  return new Date(Math.round((serial - 25569) * 86_400_000));
}

/** A date as its calendar day. The reader builds dates at UTC midnight, so the UTC day is the day the sheet shows. */
function dateText(date: Date): string {
  return Number.isNaN(date.getTime()) ? '' : date.toISOString().slice(0, 10);
}

/**
 * The digits a number cell shows. A format of only zeros (`00000`, `000000000`, `0.00`) pads and fixes the decimals
 * as Excel would; anything else shows the number's shortest exact form, in plain digits however large or small.
 */
function numberText(value: number, format: string | undefined): string {
  const padded = /^(0+)(?:\.(0+))?$/.exec(format ?? '');
  if (padded) {
    const fixed = plainDigits(Math.abs(value), padded[2]?.length ?? 0);
    const [whole = '', fraction] = fixed.split('.');
    const text = whole.padStart(padded[1]!.length, '0') + (fraction === undefined ? '' : `.${fraction}`);
    return value < 0 ? `-${text}` : text;
  }
  // 15 significant digits is what Excel keeps; it also drops binary noise such as 0.30000000000000004.
  const exact = Number(value.toPrecision(15));
  return plainDigits(exact);
}

function plainDigits(value: number, decimals?: number): string {
  if (decimals !== undefined) return value.toFixed(Math.min(decimals, 100));
  const text = String(value);
  if (!/e/i.test(text)) return text;
  if (Number.isInteger(value)) return BigInt(value).toString();
  return value.toFixed(20).replace(/\.?0+$/, '');
}
