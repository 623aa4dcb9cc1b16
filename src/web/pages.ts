import { factLines, UPLOAD_ROWS } from './fileFacts.js';
import { html, type SafeHtml } from '../core/html.js';
import { gridSection } from './gridSection.js';
import { mapSection } from './mapSection.js';
import type { Upload } from './Uploads.js';
import type { Fix, UploadTable } from './uploadTable.js';

/**
 * The sign-in form: a name and a password; with the shared password still open, the name may stay empty. With the
 * company's identity provider set up, a way through it too.
 */
export function loginPage(sharedOpen: boolean, problem?: string, companySignIn = false): SafeHtml {
  return html`<h1>Sign in</h1>
<form method="post" action="/login" class="card narrow">
  ${problem ? html`<p class="problem" role="alert">${problem}</p>` : ''}
  <label for="name">Name</label>
  ${
    sharedOpen
      ? html`<input id="name" name="name" autocomplete="username" aria-describedby="name-hint">
  <p class="hint" id="name-hint">Leave it empty to sign in with the team's shared password.</p>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required autofocus>`
      : html`<input id="name" name="name" autocomplete="username" required autofocus>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>`
  }
  <button type="submit">Sign in</button>
</form>
${companySignIn ? html`<p class="card narrow"><a class="button" href="/login/oidc">Sign in with your company account</a></p>` : ''}`;
}

export function refusalPage(message: string): SafeHtml {
  return html`<h1>Not done</h1><p class="problem" role="alert">${message}</p><p><a href="/">Back to the start</a></p>`;
}

/** The start page: a file to drop or pick, what the tool reads, and the size it takes. */
export function uploadPage(csrf: string, limitMb: number, problem?: string): SafeHtml {
  return html`<h1>Onboard payers from a spreadsheet</h1>
<p>Drop the file the team keeps the payers in. Nothing is sent until you have seen what the tool finds in it and said so.</p>
<form method="post" action="/uploads?_csrf=${csrf}" enctype="multipart/form-data" class="card" id="upload">
  ${problem ? html`<p class="problem" role="alert">${problem}</p>` : ''}
  <div class="drop" data-drop>
    <label for="file">Payers file</label>
    <input id="file" name="file" type="file" required accept=".csv,.txt,.tsv,.xlsx,.jsonl,.ndjson">
    <p class="hint">CSV in any encoding the tool reads, Excel .xlsx, or JSON lines; up to ${limitMb} MB and ${UPLOAD_ROWS.toLocaleString('en-US')} rows. Or drag it here. A file of bank details alone is taken too, after its payers' file.</p>
  </div>
  <button type="submit">Check the file</button>
</form>`;
}

/**
 * What the tool found in an upload, its Map and Fix steps while its rows can be read (`edit`), and the confirmation
 * to send it (or that it was sent).
 */
export function uploadResultPage(
  upload: Upload,
  csrf: string,
  service: string,
  edit?: { table: UploadTable; fixes: readonly Fix[] },
): SafeHtml {
  const c = upload.check;
  const steps = edit
    ? html`${mapSection(upload, edit.table, csrf)}${gridSection(upload, edit.table, edit.fixes, csrf)}`
    : undefined;
  if (c?.unusable !== undefined)
    return html`<h1>${upload.name}</h1>
${foundFacts(upload)}
<p class="problem" role="alert">The tool cannot use this file: ${c.unusable}</p>
${steps ?? html`<p>Nothing was sent. Fix the file and <a href="/">upload it again</a>.</p>`}`;
  return html`<h1>${upload.name}</h1>${checkFacts(upload)}${steps ?? problemsTable(upload)}
<div id="send-part" tabindex="-1">${sendSection(upload, csrf, service)}</div>`;
}

/** `1 row`, `2 rows`: a count and its noun, as a person writes them. */
export function count(n: number, noun: string): string {
  return `${n} ${n === 1 ? noun : `${noun}s`}`;
}

/** What the check found, its counts and its warnings: redrawn by web/fix.js from the answer to each row checked again. */
export function checkFacts(upload: Upload): SafeHtml {
  const c = upload.check;
  if (c === undefined) return html``;
  return html`<div id="check-facts"><dl class="facts" id="facts">
  <dt>Format</dt><dd>${c.format}</dd>
  ${factLines(upload.found ?? {}).map(([term, words]) => html`<dt>${term}</dt><dd>${words}</dd>`)}
  <dt>Rows</dt><dd data-fact="rows">${c.rows}</dd>
  <dt>Ready to send</dt><dd data-fact="ok">${c.ok}</dd>
  <dt>To fix</dt><dd data-fact="invalid">${c.invalid}</dd>
  <dt>Payers</dt><dd data-fact="payers">${payersWords(c.payers, c.withBank)}</dd>
  ${
    upload.sentFile === undefined
      ? ''
      : html`<dt>Goes to the inbox as</dt><dd>${upload.sentFile}: ${upload.sentFile.endsWith('.xlsx') ? 'a workbook' : 'UTF-8 CSV'} written with what you chose here (your file is kept as it came)</dd>`
  }
</dl>
${c.warnings.map((w) => html`<p class="warning">${w}</p>`)}</div>`;
}

/** The payers a run sends and how many of them get a bank account: `2, 1 of them with a bank account`. */
function payersWords(payers: number, withBank: number): string {
  if (payers === 0) return '0';
  if (withBank === 0) return `${payers}, none with a bank account`;
  if (payers === 1) return '1, with a bank account';
  return `${payers}, ${withBank} of them with a bank account`;
}

/** The counts after a row was checked again, as the Fix step's status line says them. */
export function checkWords(upload: Upload): string {
  const c = upload.check;
  if (c === undefined) return '';
  return `${count(c.ok, 'row')} ready to send, ${c.invalid === 0 ? 'none' : c.invalid} to fix`;
}

/** What the tool found in the file as it came (its sheet, header row, encoding), shown even when it cannot be used. */
function foundFacts(upload: Upload): SafeHtml {
  const lines = factLines(upload.found ?? {});
  if (lines.length === 0) return html``;
  return html`<dl class="facts" id="facts">${lines.map(([term, words]) => html`<dt>${term}</dt><dd>${words}</dd>`)}</dl>`;
}

/** The rows a run refuses, by line and message, where the grid cannot be shown (a JSON lines file). */
function problemsTable(upload: Upload): SafeHtml | string {
  const c = upload.check;
  if (c === undefined || c.problems.length === 0) return '';
  return html`<h2>Rows to fix (${c.invalid})</h2>
<p>They are not sent. The others are; fix these in the file and upload it again: rows already sent are not sent twice.</p>
<table id="problems"><thead><tr><th scope="col">Line</th><th scope="col">Payer</th><th scope="col">What is wrong</th></tr></thead>
<tbody>${c.problems.map((p) => html`<tr><td>${p.line}</td><td>${p.clientUserId}</td><td>${p.error}</td></tr>`)}</tbody></table>`;
}

/**
 * The send form with its counts, or why nothing can be sent, or that it was sent. In `#send-part`, which web/fix.js
 * redraws from the answer to each row checked again, and which the Fix step's skip link leads to.
 */
export function sendSection(upload: Upload, csrf: string, service: string): SafeHtml {
  const c = upload.check;
  if (upload.sentAs !== undefined)
    return html`<p id="status" class="ok" role="status">Sent to the inbox as ${upload.sentAs}: it is run now, and its payers wait there for their KYC.</p>
<p><a href="/sent/${upload.id}">Follow its run, then download its results</a></p>`;
  if (c === undefined || c.ok === 0)
    return html`<p class="problem" id="send-none">No row can be sent as the file stands.</p>`;
  return html`<form method="post" action="/uploads/${upload.id}/send" class="card" id="send">
  <input type="hidden" name="_csrf" value="${csrf}">
  <p>Send ${count(c.ok, 'row')}: ${count(c.payers, 'payer')}, ${c.withBank || 'none'} with a bank account, to <strong>${service}</strong>.</p>
  <button type="submit">Send ${count(c.ok, 'row')}</button>
</form>`;
}
