import { liveStreams } from './liveStreams.js';
import type { JournalPlace } from '../journal/openJournal.js';
import type { EventEmitter } from 'node:events';
import { once } from 'node:events';
import { stringify } from 'csv-stringify';
import type { FastifyInstance } from 'fastify';
import { csvSafe } from '../core/formulaGuard.js';
import { payerHistory } from '../journal/RowJournal.js';
import type { InboxRunInput } from '../inbox/Inbox.js';
import type { RunContext } from '../pipeline/RunSession.js';
import { CATEGORIES } from '../status/payerStatus.js';
import { statusOfIds } from '../status/statusOfIds.js';
import { html, toText } from '../core/html.js';
import { layout } from './layout.js';
import type { PayerBook, PayerLine, PayerView } from './payerBook.js';
import type { LinkSpec } from './payerLinkRoutes.js';
import { PAGE_SIZE, payerPage, payersFragment, payersPage } from './payerPages.js';
import type { SignedIn } from './WebAuth.js';

export interface PayerSpec {
  book: PayerBook;
  /** The journal's file, read (never written) for a payer's history. */
  journal: JournalPlace;
  /** Emits `change` when serve ended a run, a batch of events or a check: the page's table is then read again. */
  changes: EventEmitter;
  /** Where a refresh's status run writes (the inbox's results/), and the options it runs with. */
  resultsDir: string;
  runInput: InboxRunInput;
  context: RunContext;
  /** Headers every answer carries: a stream's are written by hand. */
  headers: Record<string, string>;
  /** Where the payers' personal links are kept and lead, when their page is on: a payer's page can make and revoke them. */
  links?: LinkSpec | undefined;
}

const CSV_COLUMNS: Array<Exclude<keyof PayerLine, 'mail'>> = [
  'clientUserId',
  'userId',
  'category',
  'kycStatus',
  'agreementStatus',
  'bank',
  'kycUrl',
  'agreementUrl',
  'since',
  'checkedAt',
  'error',
];

/** The Payers page, its live part, its CSV and the button that asks the service again. */
export async function payerRoutes(app: FastifyInstance, spec: PayerSpec): Promise<void> {
  let refreshing: Promise<void> | undefined;

  app.get('/payers', async (request, reply) => {
    const { csrf } = (request as SignedIn).session;
    const note = refreshing
      ? 'Asking the service about every payer: the table follows as the answers come.'
      : undefined;
    const view = viewOf(request.query);
    const body = payersPage(await spec.book.page(view, PAGE_SIZE), view, csrf, note);
    return reply.type('text/html').send(layout('Payers', body, { csrf }, ['live.js']));
  });

  app.get('/payers/:id', async (request, reply) => {
    const { csrf } = (request as SignedIn).session;
    const id = (request.params as { id: string }).id;
    const line = await spec.book.line(id);
    if (line === undefined)
      return reply
        .code(404)
        .type('text/html')
        .send(layout('Not found', html`<h1>No such payer</h1><p><a href="/payers">All payers</a></p>`, { csrf }));
    const history = await payerHistory(spec.journal, id);
    const links = spec.links === undefined ? undefined : { csrf };
    return reply.type('text/html').send(layout(id, payerPage(line, history, links), { csrf }, ['live.js']));
  });

  app.get('/payers/fragment', async (request, reply) => {
    const view = viewOf(request.query);
    return reply.type('text/html').send(toText(payersFragment(await spec.book.page(view, PAGE_SIZE), view)));
  });

  // Every payer of the view (all its pages), written as it goes rather than built whole in memory first.
  app.get('/payers.csv', async (request, reply) => {
    const lines = spec.book.each(viewOf(request.query));
    const csv = stringify({ header: true, columns: CSV_COLUMNS });
    void (async () => {
      for await (const line of lines)
        if (!csv.write(CSV_COLUMNS.map((c) => csvSafe(line[c])))) await once(csv, 'drain');
      csv.end();
    })().catch((error: unknown) => csv.destroy(error as Error));
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="payers.csv"')
      .send(csv);
  });

  const open = liveStreams(app, spec.changes);
  app.get('/payers/live', (request, reply) => {
    open(request, reply, spec.headers, (stream) => stream.send('event: change\ndata: {}\n\n'));
  });

  app.post('/payers/refresh', async (_request, reply) => {
    refreshing ??= refresh(spec).finally(() => {
      refreshing = undefined;
      spec.changes.emit('change');
    });
    return reply.redirect('/payers', 303);
  });
}

/** `status` over every payer the page knows: one read each (two where its bank account is the question). */
async function refresh(spec: PayerSpec): Promise<void> {
  const ids: string[] = [];
  for await (const line of spec.book.each({})) ids.push(line.clientUserId);
  if (ids.length === 0) return;
  const quiet: RunContext = { ...spec.context, stderr: undefined };
  // What failed is in that run's folder; the page stays as it was.
  await statusOfIds(ids, spec.resultsDir, 'status', spec.runInput, quiet).catch(() => undefined);
}

/** The view a query asks for; what it does not say (or says wrongly) is the default. */
function viewOf(query: unknown): PayerView {
  const given = (query ?? {}) as Record<string, unknown>;
  const category = CATEGORIES.find((c) => c.key === given.category)?.key;
  const search = typeof given.q === 'string' && given.q.trim() !== '' ? given.q.trim().slice(0, 200) : undefined;
  const page = typeof given.page === 'string' && /^\d{1,6}$/.test(given.page) ? Number(given.page) : 1;
  return { category, search, page };
}
