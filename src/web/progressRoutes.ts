import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { InboxPaths } from '../inbox/folders.js';
import type { Summary } from '../output/results.js';
import { readOwnCsv } from '../output/readOwnCsv.js';
import { kycRejected } from '../plan/verdict.js';
import type { PayerWho } from '../report/payerNames.js';
import { html, type SafeHtml, toText } from '../core/html.js';
import { layout } from './layout.js';
import { count } from './pages.js';
import { whoCell } from './payerPages.js';
import type { Upload, Uploads } from './Uploads.js';
import type { SignedIn } from './WebAuth.js';

export interface ProgressSpec {
  uploads: Uploads;
  paths: InboxPaths;
  headers: Record<string, string>;
  /** Who holds the service and key while serve's work waits its turn (a person's run), else undefined. */
  heldBy: () => string | undefined;
  /** Who these payers are, from the payer directory: an id not found is shown alone. */
  who: (clientUserIds: readonly string[]) => Promise<ReadonlyMap<string, PayerWho>>;
}

/** A payer of the sent file a person acts on: its row's line and what its error cell says. */
interface ActRow {
  clientUserId: string;
  line: string;
  why: string;
}

/** The payers of a run a person acts on: rows to fix, payers to contact (nothing in their rows is wrong). */
interface ToAct {
  fix: ActRow[];
  fixTotal: number;
  contact: ActRow[];
  contactTotal: number;
  who: ReadonlyMap<string, PayerWho>;
}

/** Payers each list of the sent file's page names; its results.csv and the Payers page have them all. */
const LISTED = 50;

/** Where a sent file is: waiting to be taken, being run (rows done so far), or run (its summary and its files). */
interface Progress {
  state: 'queued' | 'running' | 'done';
  rowsDone: number;
  rows: number;
  results?: string;
  summary?: Summary;
  files: string[];
}

/** Files of a run's folder the page offers: what the run wrote for people, the rows' own files included. */
const OFFERED = /^(results\.csv|report\.html|(failed|pending)-[^/\\]+)$/;

/** A sent upload followed live: its run's progress (server-sent events) and, once run, its files to download. */
export async function progressRoutes(app: FastifyInstance, spec: ProgressSpec): Promise<void> {
  const sentUpload = async (id: string) => {
    const upload = await spec.uploads.get(id);
    return upload?.sentAs === undefined ? undefined : upload;
  };
  app.get('/sent/:id', async (request, reply) => {
    const session = (request as SignedIn).session;
    const upload = await sentUpload((request.params as { id: string }).id);
    if (upload === undefined)
      return reply
        .code(404)
        .type('text/html')
        .send(layout('Not found', html`<h1>Not found</h1>`, session));
    const progress = progressOf(upload, spec.paths);
    const body = html`<h1>${upload.name}</h1>
${whoLine(upload)}
<div id="progress-live" data-live="/sent/${upload.id}/live" data-fragment="/sent/${upload.id}/fragment" data-live-ends aria-live="polite">
${progressFragment(upload, progress, spec.heldBy(), await toAct(progress, spec))}
</div>`;
    return reply.type('text/html').send(layout(upload.name, body, session, ['live.js']));
  });
  app.get('/sent/:id/fragment', async (request, reply) => {
    const upload = await sentUpload((request.params as { id: string }).id);
    if (upload === undefined) return reply.code(404).send();
    const progress = progressOf(upload, spec.paths);
    return reply
      .type('text/html')
      .send(toText(progressFragment(upload, progress, spec.heldBy(), await toAct(progress, spec))));
  });
  app.get('/sent/:id/live', async (request, reply) => {
    const upload = await sentUpload((request.params as { id: string }).id);
    if (upload === undefined) return reply.code(404).send();
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { ...spec.headers, 'content-type': 'text/event-stream', connection: 'keep-alive' });
    // Looked at every half second while the file is queued or runs; the stream ends once it has been run.
    let last = '';
    const look = () => {
      const now = progressOf(upload, spec.paths);
      const sign = `${now.state}:${now.rowsDone}:${spec.heldBy() ?? ''}`;
      if (sign !== last) res.write('event: change\ndata: {}\n\n');
      last = sign;
      if (now.state === 'done') end();
    };
    const timer = setInterval(look, 500);
    const end = () => {
      clearInterval(timer);
      res.end();
    };
    request.raw.on('close', () => clearInterval(timer));
    look();
    return reply;
  });
  app.get('/sent/:id/files/:name', async (request, reply) => {
    const { id, name } = request.params as { id: string; name: string };
    const upload = await sentUpload(id);
    const progress = upload && progressOf(upload, spec.paths);
    if (progress?.results === undefined || !OFFERED.test(name) || !progress.files.includes(name))
      return reply.code(404).send();
    const type = name.endsWith('.html') ? 'text/html; charset=utf-8' : 'application/octet-stream';
    return reply
      .type(type)
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(createReadStream(join(spec.paths.results, progress.results, name)));
  });
}

/** Who uploaded the file, approved it and sent it, as the upload kept them. */
function whoLine(upload: Upload): SafeHtml | string {
  const parts = [
    ...(upload.by ? [`uploaded by ${upload.by.name}`] : []),
    ...(upload.approval ? [`approved by ${upload.approval.by.name}`] : []),
    ...(upload.sentBy ? [`sent by ${upload.sentBy.name}`] : []),
  ];
  if (parts.length === 0) return '';
  const said = parts.join(', ');
  return html`<p id="who-sent">${said.charAt(0).toUpperCase()}${said.slice(1)}.</p>`;
}

/** The state of a sent file, from the inbox's folders and its run's results folder. */
function progressOf(upload: Upload, paths: InboxPaths): Progress {
  const name = upload.sentAs!;
  const rows = upload.check?.rows ?? 0;
  const folders = existsSync(paths.results) ? readdirSync(paths.results).filter((f) => f.startsWith(`${name}-`)) : [];
  const results = folders.sort().at(-1);
  const dir = results === undefined ? undefined : join(paths.results, results);
  if (existsSync(join(paths.incoming, name)) || dir === undefined)
    return { state: 'queued', rowsDone: 0, rows, files: [] };
  const summaryPath = join(dir, 'summary.json');
  const running = existsSync(join(paths.processing, name)) && !existsSync(summaryPath);
  const files = readdirSync(dir).filter((f) => OFFERED.test(f));
  if (running) return { state: 'running', rowsDone: linesOf(join(dir, 'results.csv')), rows, results, files: [] };
  const summary = existsSync(summaryPath) ? (JSON.parse(readFileSync(summaryPath, 'utf8')) as Summary) : undefined;
  return { state: 'done', rowsDone: rows, rows, results, files, ...(summary ? { summary } : {}) };
}

/** Rows written to a results.csv so far (its header not counted). */
function linesOf(path: string): number {
  try {
    if (statSync(path).size === 0) return 0;
    return Math.max(0, readFileSync(path, 'utf8').trimEnd().split('\n').length - 1);
  } catch {
    return 0;
  }
}

/**
 * The payers of a run done that a person acts on, read from its results.csv: rows to fix, and payers whose identity
 * check the service refused (or who waited past --max-wait), who are contacted: nothing in their rows is wrong.
 */
async function toAct(p: Progress, spec: Pick<ProgressSpec, 'paths' | 'who'>): Promise<ToAct | undefined> {
  if (p.state !== 'done' || p.results === undefined) return undefined;
  const act: Omit<ToAct, 'who'> = { fix: [], fixTotal: 0, contact: [], contactTotal: 0 };
  try {
    for await (const r of readOwnCsv(join(spec.paths.results, p.results, 'results.csv'))) {
      if (r.outcome !== 'invalid' && r.outcome !== 'failed') continue;
      const row = { clientUserId: r.clientUserId ?? '', line: r.line ?? '', why: r.error ?? '' };
      const contact =
        r.outcome === 'failed' &&
        (kycRejected({ kycStatus: r.kycStatus }) || /still waiting after \d+ days/.test(row.why));
      if (contact && act.contactTotal++ < LISTED) act.contact.push(row);
      if (!contact && act.fixTotal++ < LISTED) act.fix.push(row);
    }
  } catch {
    return undefined;
  }
  const who = await spec.who([...act.fix, ...act.contact].map((r) => r.clientUserId)).catch(() => new Map());
  return { ...act, who };
}

/** One list of payers to act on, each by name and e-mail where the directory has them, then id and line. */
function actList(id: string, title: string, rows: readonly ActRow[], total: number, act: ToAct): SafeHtml | string {
  if (total === 0) return '';
  const more =
    total > rows.length
      ? html`<p class="hint">The first ${rows.length} of ${total}: results.csv has them all.</p>`
      : '';
  const items = rows.map(
    (r) =>
      html`<tr><td class="who">${whoCell(r.clientUserId, act.who.get(r.clientUserId))}</td><td>${r.line}</td><td>${r.why}</td></tr>`,
  );
  return html`<h2>${title} (${total})</h2>
<table id="${id}"><thead><tr><th scope="col">Payer</th><th scope="col">Line</th><th scope="col">What it says</th></tr></thead><tbody>${items}</tbody></table>${more}`;
}

function progressFragment(upload: Upload, p: Progress, heldBy: string | undefined, act?: ToAct): SafeHtml {
  if (p.state === 'queued' && heldBy !== undefined)
    return html`<p role="status">In the inbox, waiting its turn: ${heldBy} It is run once that ends.</p>`;
  if (p.state === 'queued') return html`<p role="status">In the inbox, about to be run.</p>`;
  if (p.state === 'running')
    return html`<p role="status">Running: ${p.rowsDone} of ${count(p.rows, 'row')} done.</p>
<progress max="${p.rows}" value="${p.rowsDone}">${p.rowsDone} of ${p.rows}</progress>`;
  const r = p.summary?.rows;
  // Payers to contact are not rows to fix: nothing in their rows is wrong.
  const fix = act ? act.fixTotal : r ? r.invalid + r.failed : 0;
  const counts = r
    ? html`<dl class="facts"><dt>Done</dt><dd>${r.ok}</dd><dt>Waiting on the payers</dt><dd>${r.waiting}</dd><dt>To fix</dt><dd>${fix}</dd>${act && act.contactTotal > 0 ? html`<dt>To contact</dt><dd>${act.contactTotal}</dd>` : ''}<dt>Not attempted</dt><dd>${r.skipped}</dd></dl>`
    : '';
  const lists = act
    ? html`${actList('to-fix', 'Rows to fix', act.fix, act.fixTotal, act)}${actList('to-contact', 'Payers to contact: nothing in their rows is wrong', act.contact, act.contactTotal, act)}`
    : '';
  const links = p.files.map((f) => html`<li><a href="/sent/${upload.id}/files/${f}" download>${f}</a></li>`);
  return html`<p role="status" class="ok" id="finished">Run: the rows waiting on their payers go on by themselves as the service's webhooks come in.</p>
${counts}
${lists}
<h2>Files</h2><ul class="files">${links}</ul>
<p><a href="/payers">See where each payer stands</a></p>`;
}
