import { liveStreams } from './liveStreams.js';
import type { JournalPlace } from '../journal/openJournal.js';
import type { EventEmitter } from 'node:events';
import { once } from 'node:events';
import { stringify } from 'csv-stringify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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

/** The CSV download's columns: the line's, then who the payer is (as status.csv ends with them). */
const CSV_COLUMNS: Array<Exclude<keyof PayerLine, 'mail' | 'who' | 'read'> | 'name' | 'email'> = [
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
  'name',
  'email',
];

/**
 * The Payers page, its live part, its CSV and the button that asks the service again. A view with a search is posted,
 * never put in a URL: what a person searches for may be a name or an e-mail address.
 */
export async function payerRoutes(app: FastifyInstance, spec: PayerSpec): Promise<void> {
  let refreshing: Promise<void> | undefined;
  const ask = (ids?: readonly string[]) => {
    refreshing ??= refresh(spec, ids).finally(() => {
      refreshing = undefined;
      spec.changes.emit('change');
    });
  };
  // The first time the page is shown, the payers whose bank account was stored with no read since (the approvals were
  // not followed: the page was off, or no webhooks came) are read once, so the page says what the service says.
  let firstRead = false;
  const readUnread = () => {
    if (firstRead) return;
    firstRead = true;
    void spec.book.unread().then(
      (ids) => {
        if (ids.length > 0) ask(ids);
      },
      () => undefined,
    );
  };

  const page = async (request: FastifyRequest, reply: FastifyReply, view: PayerView) => {
    const session = (request as SignedIn).session;
    const { csrf } = session;
    readUnread();
    const note = refreshing ? 'Asking the service about the payers: the table follows as the answers come.' : undefined;
    const body = payersPage(await spec.book.page(view, PAGE_SIZE), view, csrf, note);
    return reply.type('text/html').send(layout('Payers', body, session, ['live.js']));
  };
  app.get('/payers', async (request, reply) => page(request, reply, viewOf(request.query)));
  app.post('/payers', async (request, reply) => page(request, reply, viewOf(request.body)));

  app.get('/payers/:id', async (request, reply) => {
    const session = (request as SignedIn).session;
    const { csrf } = session;
    const id = (request.params as { id: string }).id;
    const line = await spec.book.line(id);
    if (line === undefined)
      return reply
        .code(404)
        .type('text/html')
        .send(layout('Not found', html`<h1>No such payer</h1><p><a href="/payers">All payers</a></p>`, session));
    const history = await payerHistory(spec.journal, id);
    const links = spec.links === undefined ? undefined : { csrf };
    const title = line.who?.name ?? id;
    return reply.type('text/html').send(layout(title, payerPage(line, history, links), session, ['live.js']));
  });

  const fragment = async (request: FastifyRequest, reply: FastifyReply, view: PayerView) => {
    const session = (request as SignedIn).session;
    const { csrf } = session;
    const shown = await spec.book.page(view, PAGE_SIZE);
    return reply.type('text/html').send(toText(payersFragment(shown, view, csrf)));
  };
  app.get('/payers/fragment', async (request, reply) => fragment(request, reply, viewOf(request.query)));
  app.post('/payers/fragment', async (request, reply) => fragment(request, reply, viewOf(request.body)));

  // Every payer of the view (all its pages), written as it goes rather than built whole in memory first.
  const csvOf = async (reply: FastifyReply, view: PayerView) => {
    const lines = spec.book.each(view);
    const csv = stringify({ header: true, columns: CSV_COLUMNS });
    void (async () => {
      for await (const line of lines) if (!csv.write(csvLine(line))) await once(csv, 'drain');
      csv.end();
    })().catch((error: unknown) => csv.destroy(error as Error));
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="payers.csv"')
      .send(csv);
  };
  app.get('/payers.csv', async (request, reply) => csvOf(reply, viewOf(request.query)));
  app.post('/payers.csv', async (request, reply) => csvOf(reply, viewOf(request.body)));

  const open = liveStreams(app, spec.changes);
  app.get('/payers/live', (request, reply) => {
    open(request, reply, spec.headers, (stream) => stream.send('event: change\ndata: {}\n\n'));
  });

  app.post('/payers/refresh', async (_request, reply) => {
    ask();
    return reply.redirect('/payers', 303);
  });
}

/** A line of the CSV download: who the payer is (the directory's, as the page is shown), then the line's own cells. */
function csvLine(line: PayerLine): string[] {
  return CSV_COLUMNS.map((c) =>
    csvSafe(c === 'name' ? (line.who?.name ?? '') : c === 'email' ? (line.who?.email ?? '') : line[c]),
  );
}

/** `status` over these payers, or every payer the page knows: one read each (two where its bank account is the question). */
async function refresh(spec: PayerSpec, some?: readonly string[]): Promise<void> {
  const ids: string[] = some === undefined ? [] : [...some];
  if (some === undefined) for await (const line of spec.book.each({})) ids.push(line.clientUserId);
  if (ids.length === 0) return;
  const quiet: RunContext = { ...spec.context, stderr: undefined };
  // What failed is in that run's folder; the page stays as it was.
  await statusOfIds(ids, spec.resultsDir, 'status', spec.runInput, quiet).catch(() => undefined);
}

/** The view a query or a posted form asks for; what it does not say (or says wrongly) is the default. */
function viewOf(query: unknown): PayerView {
  const given = (query ?? {}) as Record<string, unknown>;
  const category = CATEGORIES.find((c) => c.key === given.category)?.key;
  const search = typeof given.q === 'string' && given.q.trim() !== '' ? given.q.trim().slice(0, 200) : undefined;
  const page = typeof given.page === 'string' && /^\d{1,6}$/.test(given.page) ? Number(given.page) : 1;
  return { category, search, page };
}
