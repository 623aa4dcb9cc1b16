import { type CellMark, marksOf } from './cellMarks.js';
import { html, type SafeHtml } from '../core/html.js';
import type { Upload } from './Uploads.js';
import { type Fix, fixedRows, sentHeader, type UploadTable } from './uploadTable.js';

/** A row of the Fix grid: its line in the upload, its cells (fixes applied), its marks, whether it is left out. */
interface GridRow {
  line: number;
  texts: string[];
  marks: CellMark[];
  out: boolean;
}

/** The marks of each line the check refused, at the cells of the header the check read (the mapping's names). */
export function marksByLine(upload: Upload, header: readonly string[]): Map<number, CellMark[]> {
  const checked = sentHeader(header, upload.mapping ?? {});
  return new Map(
    (upload.check?.problems ?? []).map((p) => [Number(p.line), marksOf(p.error, checked).map(rowWords)] as const),
  );
}

/** A message about the whole row names no column: the `(row): ` it comes with says nothing in the row's own cell. */
function rowWords(mark: CellMark): CellMark {
  return mark.column === undefined ? { message: mark.message.replace(/^\(row\): /, '') } : mark;
}

/** The Fix step's heading: the rows still to fix, by the last check. Redrawn by web/fix.js. */
export function fixTitle(upload: Upload): string {
  const invalid = upload.check?.invalid ?? 0;
  return invalid === 0 ? 'Rows to fix: none left' : `Rows to fix (${invalid})`;
}

/**
 * The order the grid shows the columns in: those with a bad cell in a shown row first (in the file's order), then
 * the others. A file is wider than a screen: its bad cells are then in sight as the page opens, on a desk without
 * scrolling the grid, and they come first to the keyboard. Each cell keeps its column's number in its name.
 */
function columnOrder(rows: readonly GridRow[], width: number): number[] {
  const bad = new Set(rows.flatMap((row) => row.marks.flatMap((m) => (m.column === undefined ? [] : [m.column]))));
  const all = Array.from({ length: width }, (_, i) => i);
  return [...all.filter((i) => bad.has(i)), ...all.filter((i) => !bad.has(i))];
}

/** The rows to show: those the check refuses, and those the person changed or left out (so the change can be undone). */
export function gridRows(upload: Upload, table: UploadTable, fixes: readonly Fix[]): GridRow[] {
  const marks = marksByLine(upload, table.header);
  const out = new Set(upload.leftOut ?? []);
  const touched = new Set([...marks.keys(), ...out, ...fixes.map((f) => f.line)]);
  const rows = fixedRows(table, fixes);
  return table.rows
    .filter((row) => touched.has(row.line))
    .slice(0, 200)
    .map((row) => ({
      line: row.line,
      texts: rows.get(row.line)!,
      marks: marks.get(row.line) ?? [],
      out: out.has(row.line),
    }));
}

/**
 * The Fix step: the rows in a grid, every cell editable, the bad ones marked with the tool's message. One form posts
 * every shown cell (`c:<line>:<column>`) and the rows left out (`out:<line>`); web/fix.js checks a changed row at once.
 */
export function gridSection(upload: Upload, table: UploadTable, fixes: readonly Fix[], csrf: string): SafeHtml {
  const rows = gridRows(upload, table, fixes);
  if (rows.length === 0) return html``;
  const order = columnOrder(rows, table.header.length);
  const head = order.map((i) => html`<th scope="col">${table.header[i]}</th>`);
  const body = rows.map((row) => gridRow(row, table.header, order));
  return html`<section class="card" id="fix" aria-labelledby="fix-title">
<h2 id="fix-title">${fixTitle(upload)}</h2>
<p>Change a cell and the row is checked again. A row left out is not sent; the others are. The columns with a problem come first.</p>
<form method="post" action="/uploads/${upload.id}/rows">
<input type="hidden" name="_csrf" value="${csrf}">
<a class="skip" href="#send-part">Skip the grid, to Send</a>
<div class="grid-wrap"><table class="grid"><thead><tr><th scope="col">Line</th><th scope="col">Leave out</th>${head}</tr></thead>
<tbody>${body}</tbody></table></div>
<p id="fix-status" role="status" aria-live="polite"></p>
<button type="submit">Save the changes and check again</button>
</form>
</section>`;
}

function gridRow(row: GridRow, header: readonly string[], order: readonly number[]): SafeHtml {
  const cells = order.map((i) => {
    const column = header[i] ?? '';
    const marks = row.marks.filter((m) => m.column === i);
    const id = `c-${row.line}-${i}`;
    const bad = marks.length > 0;
    return html`<td${bad ? html` class="bad"` : ''}><input id="${id}" name="c:${row.line}:${i}" value="${row.texts[i] ?? ''}" aria-label="Line ${row.line}, ${column || `column ${i + 1}`}"${
      bad ? html` aria-invalid="true" aria-describedby="${id}-m"` : ''
    }>${bad ? html`<span class="mark" id="${id}-m">${marks.map((m) => m.message).join('; ')}</span>` : ''}</td>`;
  });
  const whole = row.marks.filter((m) => m.column === undefined).map((m) => m.message);
  return html`<tr data-line="${row.line}"${row.out ? html` class="out"` : ''}>
<th scope="row">${row.line}<input type="hidden" name="lines" value="${row.line}"></th>
<td><input type="checkbox" id="out-${row.line}" name="out:${row.line}" aria-describedby="note-${row.line}"${row.out ? html` checked` : ''}><label class="inline" for="out-${row.line}">Leave out line ${row.line}</label></td>
${cells}</tr>
${rowNote(row.line, whole, order.length + 2)}`;
}

/**
 * What is wrong with a row as a whole (a totals row, a field it has no column for), in a line of its own under the row,
 * from its left edge: a column of it would push every bad cell of the other rows out of sight. Hidden while empty.
 */
function rowNote(line: number, messages: readonly string[], span: number): SafeHtml {
  return html`<tr class="row-note" data-note="${line}"${messages.length === 0 ? html` hidden` : ''}><td colspan="${span}"><span class="row-marks" id="note-${line}">${messages.join('; ')}</span></td></tr>`;
}
