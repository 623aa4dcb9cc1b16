import { factLines, UPLOAD_ROWS } from './fileFacts.js';
import { html, type SafeHtml } from '../core/html.js';
import type { SendGate } from './fourEyes.js';
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
  gate: SendGate,
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
<div id="send-part" tabindex="-1">${sendSection(upload, csrf, service, gate)}</div>`;
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
 * The send form with its counts, or why nothing can be sent, or that it was sent; where a second person's approval
 * is needed, why, whether one holds, and who may give it. In `#send-part`, which web/fix.js redraws from the answer to
 * each row checked again, and which the Fix step's skip link leads to.
 */
export function sendSection(upload: Upload, csrf: string, service: string, gate: SendGate): SafeHtml {
  const c = upload.check;
  if (upload.sentAs !== undefined)
    return html`<p id="status" class="ok" role="status">Sent to the inbox as ${upload.sentAs}: it is run now, and its payers wait there for their KYC.</p>
<p><a href="/sent/${upload.id}">Follow its run, then download its results</a></p>`;
  if (c === undefined || c.ok === 0)
    return html`<p class="problem" id="send-none">No row can be sent as the file stands.</p>`;
  const what = html`${count(c.ok, 'row')}: ${count(c.payers, 'payer')}, ${c.withBank || 'none'} with a bank account, to <strong>${service}</strong>`;
  const said = html`${newAccountRows(upload)}${approvalWords(gate)}`;
  if (gate.may === 'send')
    return html`<form method="post" action="/uploads/${upload.id}/send" class="card" id="send">
  <input type="hidden" name="_csrf" value="${csrf}">
  <p>Send ${what}.</p>${said}
  <button type="submit">Send ${count(c.ok, 'row')}</button>
</form>`;
  const next =
    gate.may === 'approve'
      ? html`<p><a class="button" href="/uploads/${upload.id}/review">Check the bank details, then approve and send</a></p>`
      : html`<p id="who-sends">${whoSends(gate)}</p>`;
  return html`<div class="card" id="send"><p>${count(c.ok, 'row')} to send: ${count(c.payers, 'payer')}, ${c.withBank || 'none'} with a bank account, to <strong>${service}</strong>.</p>${said}${next}</div>`;
}

/** Why a second person approves the upload before it is sent, and the approval given: holding, or void and why. */
export function approvalWords(gate: SendGate): SafeHtml | string {
  const why: string[] = [];
  if (gate.stand.on) why.push('four eyes is on');
  if (gate.newAccounts === 'unknown')
    why.push('the tool could not compare its bank accounts with those its payers have (reload the page to try again)');
  else if (gate.newAccounts > 0)
    why.push(
      `${count(gate.newAccounts, 'row')} ${gate.newAccounts === 1 ? 'gives' : 'give'} a payer who has a bank account another one`,
    );
  const a = gate.approval;
  const given = a === undefined ? '' : `${a.by.name} on ${when(a.at)}`;
  const approval =
    a === undefined
      ? ''
      : a.holds
        ? html`<p class="ok" id="approval">Approved by ${given}: nothing was changed since.</p>`
        : html`<p class="warning" id="approval">The approval by ${given} no longer holds: ${a.changedBy.join(', ') || 'someone'} changed the upload after it. It needs approving again.</p>`;
  const needed =
    gate.needed && why.length > 0
      ? html`<p id="why-approval">A second person approves it before it is sent: ${why.join('; ')}.</p>`
      : '';
  return html`${needed}${approval}`;
}

/** Who can send an upload the person looking cannot. */
function whoSends(gate: SendGate): string {
  const names = (people: readonly string[]) =>
    people.length <= 1 ? (people[0] ?? '') : `${people.slice(0, -1).join(', ')} or ${people.at(-1)}`;
  if (gate.may === 'role') {
    // Approved already (or needing no approval), any approver sends it; else one who did not upload or change it.
    const approving = gate.needed && gate.approval?.holds !== true;
    const can = approving ? gate.others : gate.approvers;
    return can.length === 0
      ? 'Sending needs an approver, and the team has none who can send this: an admin can add one.'
      : `Sending needs an approver: ${names(can)} can ${approving ? 'approve and send' : 'send'} it.`;
  }
  return gate.others.length === 0
    ? 'You uploaded or changed this upload, so another approver approves it before it is sent, and the team has none: an admin can add one, or someone who did not change it uploads the file again.'
    : `You uploaded or changed this upload, so another approver approves it before it is sent: ${names(gate.others)}.`;
}

/** The rows that give a payer the journal knows with a bank account another one, by line and payer. */
export function newAccountRows(upload: Upload): SafeHtml | string {
  const found = upload.newAccounts;
  if (found === undefined || found.total === 0) return '';
  const shown = found.rows.slice(0, 20);
  const more = found.total > shown.length ? html`<li>and ${found.total - shown.length} more</li>` : '';
  return html`<div class="warning" id="new-accounts"><p>A new bank account for a payer who already has one:</p>
<ul>${shown.map((r) => html`<li>${r.sheet === undefined ? '' : `${r.sheet}, `}line ${r.line}: ${r.clientUserId}</li>`)}${more}</ul></div>`;
}

/** An ISO time as a person reads it on the page: `2026-03-02 14:05 UTC`. */
export function when(at: string): string {
  return `${at.slice(0, 10)} ${at.slice(11, 16)} UTC`;
}
