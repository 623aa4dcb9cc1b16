import { html, type SafeHtml } from '../core/html.js';
import { BANK_ONLY_FIELDS } from '../rows/fields.js';
import { fieldLabel } from '../rows/fieldLabels.js';
import { columnFields } from './auditMask.js';
import type { SendGate } from './fourEyes.js';
import { approvalWords, count, newAccountRows, sendSection, when } from './pages.js';
import type { Upload } from './Uploads.js';
import { type Fix, fixedRows, type UploadTable } from './uploadTable.js';

/** The rows from the top of the file the approver's page reads (and every row changed or named new besides). */
export const REVIEW_ROWS = 500;

/** The columns that say whose the account is, shown beside its bank details. */
const WHO: ReadonlySet<string> = new Set(['clientUserId', 'firstName', 'lastName', 'companyName']);
const BANK: ReadonlySet<string> = new Set(BANK_ONLY_FIELDS);

/** What the approver's page is drawn from. */
export interface Review {
  upload: Upload;
  table: UploadTable | undefined;
  fixes: readonly Fix[];
  gate: SendGate;
  /** The hash of the content shown: the approval posted covers it, and only it. */
  hash: string;
  csrf: string;
  service: string;
}

/**
 * The approver's page: who uploaded and changed what, the rows with their bank details in full (those giving a known
 * payer a new account first), and the approval of exactly that content, or why this person cannot give it. Returns
 * how many rows it shows, for the audit line its showing writes.
 */
export function reviewPage(review: Review): { body: SafeHtml; rows: number } {
  const { upload, gate } = review;
  const rows = accountRows(review);
  const body = html`<h1>Check ${upload.name} before it is sent</h1>
<p>Uploaded by ${upload.by?.name ?? 'someone'} on ${when(upload.at)}. This page shows the rows' bank details in full: each time it is shown, the audit trail says who saw them.</p>
${newAccountRows(upload)}${approvalWords(gate)}
${changesTable(review)}
${rows.body}
<div id="send-part">${gate.may === 'approve' ? approveForm(review) : sendSection(upload, review.csrf, review.service, gate)}</div>`;
  return { body, rows: rows.shown };
}

function approveForm({ upload, csrf, hash }: Review): SafeHtml {
  const ok = upload.check?.ok ?? 0;
  return html`<form method="post" action="/uploads/${upload.id}/send" class="card" id="approve">
<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="approve" value="1"><input type="hidden" name="hash" value="${hash}">
<p>Your approval covers the upload exactly as this page shows it: any change after it voids it.</p>
<div class="actions"><button type="submit">Approve and send ${count(ok, 'row')}</button>
<button type="submit" class="secondary" formaction="/uploads/${upload.id}/approve">Approve only: it is sent later</button></div>
</form>`;
}

/** Every change made to the upload, in order: who, when, what. The approver sees the values in full. */
function changesTable({ upload, fixes }: Review): SafeHtml {
  const changes = [
    { at: upload.at, who: upload.by?.name, what: 'uploaded the file' },
    ...(upload.mapped ?? []).map((m) => ({ at: m.at, who: m.by.name, what: 'chose the mapping or the date format' })),
    ...fixes.map((f) => ({
      at: f.at,
      who: f.by?.name,
      what:
        f.column === '(row)' ? `line ${f.line}: ${f.value}` : `line ${f.line}, ${f.column}: changed to “${f.value}”`,
    })),
  ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const mapping = Object.entries(upload.mapping ?? {}).map(
    ([column, field]) => `${column} → ${fieldLabel(field).label}`,
  );
  return html`<h2>Changes made</h2>
${mapping.length === 0 ? '' : html`<p>Columns mapped: ${mapping.join(', ')}.</p>`}
${upload.dates?.format === undefined ? '' : html`<p>Dates read as ${upload.dates.format}.</p>`}
<table id="changes"><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th></tr></thead>
<tbody>${changes.map((c) => html`<tr><td>${when(c.at)}</td><td>${c.who ?? '(not recorded)'}</td><td>${c.what}</td></tr>`)}</tbody></table>`;
}

/** The rows sent with a bank account, their bank columns in full, the fixes applied; the rows named new first. */
function accountRows({ upload, table, fixes }: Review): { body: SafeHtml; shown: number } {
  if (table === undefined)
    return {
      body: html`<h2>Bank details</h2><p>A JSON lines file: its rows cannot be laid out here. It is sent as uploaded.</p>`,
      shown: 0,
    };
  const fields = columnFields(table.header, upload.mapping ?? {});
  const bank = fields.flatMap((f, i) => (f !== undefined && BANK.has(f) ? [i] : []));
  if (bank.length === 0)
    return { body: html`<h2>Bank details</h2><p>No column of this file holds bank details.</p>`, shown: 0 };
  const columns = [...fields.flatMap((f, i) => (f !== undefined && WHO.has(f) ? [i] : [])), ...bank];
  const fresh = new Set((upload.newAccounts?.rows ?? []).filter((r) => r.sheet === undefined).map((r) => r.line));
  const out = new Set(upload.leftOut ?? []);
  const texts = fixedRows(table, fixes);
  const rows = table.rows
    .filter((row) => !out.has(row.line) && bank.some((i) => (texts.get(row.line)?.[i] ?? '').trim() !== ''))
    .sort((a, b) => Number(fresh.has(b.line)) - Number(fresh.has(a.line)) || a.line - b.line);
  const more =
    (upload.check?.rows ?? 0) > REVIEW_ROWS
      ? html`<p class="hint">The file's first ${REVIEW_ROWS} rows are shown, and every row changed or named above.</p>`
      : '';
  const head = columns.map((i) => html`<th scope="col">${table.header[i]}</th>`);
  const body = rows.map(
    (row) =>
      html`<tr${fresh.has(row.line) ? html` class="new-account"` : ''}><th scope="row">${row.line}${fresh.has(row.line) ? html` <strong>new account</strong>` : ''}</th>${columns.map((i) => html`<td>${texts.get(row.line)?.[i] ?? ''}</td>`)}</tr>`,
  );
  return {
    body: html`<h2>Bank details (${count(rows.length, 'row')})</h2>${more}
<div class="grid-wrap"><table id="bank-rows"><thead><tr><th scope="col">Line</th>${head}</tr></thead><tbody>${body}</tbody></table></div>`,
    shown: rows.length,
  };
}
