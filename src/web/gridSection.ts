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
    (upload.check?.problems ?? []).map((p) => [Number(p.line), marksOf(p.error, checked)] as [number, CellMark[]]),
  );
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
  const head = table.header.map((column) => html`<th scope="col">${column}</th>`);
  const body = rows.map((row) => gridRow(row, table.header));
  return html`<section class="card" id="fix" aria-labelledby="fix-title">
<h2 id="fix-title">Rows to fix (${upload.check?.invalid ?? 0})</h2>
<p>Change a cell and the row is checked again. A row left out is not sent; the others are.</p>
<form method="post" action="/uploads/${upload.id}/rows">
<input type="hidden" name="_csrf" value="${csrf}">
<div class="grid-wrap"><table class="grid"><thead><tr><th scope="col">Line</th><th scope="col">Leave out</th>${head}<th scope="col">Row</th></tr></thead>
<tbody>${body}</tbody></table></div>
<p id="fix-status" role="status" aria-live="polite"></p>
<button type="submit">Save the changes and check again</button>
</form>
</section>`;
}

function gridRow(row: GridRow, header: readonly string[]): SafeHtml {
  const cells = header.map((column, i) => {
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
<td><input type="checkbox" id="out-${row.line}" name="out:${row.line}"${row.out ? html` checked` : ''}><label class="inline" for="out-${row.line}">Leave out line ${row.line}</label></td>
${cells}<td class="row-marks">${whole.join('; ')}</td></tr>`;
}
