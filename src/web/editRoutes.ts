import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toText } from '../core/html.js';
import { actorOf, type Audit } from './Audit.js';
import { columnFields, maskValue } from './auditMask.js';
import { postedDateFormat } from './dateChoice.js';
import type { FourEyes, SendGate } from './fourEyes.js';
import { fixTitle, marksByLine } from './gridSection.js';
import { postedMapping } from './mapSection.js';
import type { InboxRunInput } from '../inbox/Inbox.js';
import type { RunContext } from '../pipeline/RunSession.js';
import { checkFacts, checkWords, sendSection } from './pages.js';
import type { Upload, Uploads } from './Uploads.js';
import type { SignedIn } from './WebAuth.js';
import { type Fix, fixedRows, type Person, personOf, type UploadTable } from './uploadTable.js';

/**
 * What the steps need of the upload routes' spec: the uploads, the run options and context a check uses, and the
 * service the send form names.
 */
interface EditSpec {
  uploads: Uploads;
  runInput: InboxRunInput;
  context: RunContext;
  service: string;
  fourEyes: FourEyes;
  audit: Audit;
}

/** A row changed by web/fix.js: its cells by header position, and whether it is left out. */
interface RowPost {
  line: number;
  cells: Record<string, string>;
  out: boolean;
}

/**
 * The Map and Fix steps of an upload not yet sent: a mapping and date format chosen (saved for the header's columns,
 * then checked again), and
 * cells changed or rows left out, from the page's form (answered with the page) or from web/fix.js (answered with the
 * marks of every row shown, in JSON). Each change is kept with who made it, and written to the audit trail (the cells'
 * values masked).
 */
export async function editRoutes(app: FastifyInstance, spec: EditSpec): Promise<void> {
  const check = { input: spec.runInput, context: spec.context };
  const editable = async (request: FastifyRequest, reply: FastifyReply) => {
    const upload = await spec.uploads.get(idOf(request));
    if (upload === undefined) return void reply.code(404).send();
    if (upload.sentAs !== undefined) return void reply.code(409).send();
    const table = await spec.uploads.table(upload);
    if (table === undefined) return void reply.code(409).send();
    return { upload, table };
  };

  // The grid's form posts every cell shown (up to 200 rows): more than the 16 kB the other forms may be.
  const bodyLimit = 2 * 1024 * 1024;
  app.post('/uploads/:id/mapping', { bodyLimit }, (request, reply) =>
    spec.uploads.serial(idOf(request), () => map(request, reply)),
  );
  app.post('/uploads/:id/rows', { bodyLimit }, (request, reply) =>
    spec.uploads.serial(idOf(request), () => fix(request, reply)),
  );

  async function map(request: FastifyRequest, reply: FastifyReply) {
    const found = await editable(request, reply);
    if (found === undefined) return reply;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const chosen = { mapping: postedMapping(found.table, body), dateFormat: postedDateFormat(body) };
    const { upload } = found;
    const mapped = await spec.uploads.map(upload, found.table, chosen, check, personOf(signedIn(request).user));
    if ((mapped.mapped?.length ?? 0) > (upload.mapped?.length ?? 0))
      await spec.audit.record(actorOf(request as SignedIn), 'mapping', upload.id, {
        mapping: mapped.mapping ?? {},
        dateFormat: mapped.dates?.format ?? null,
      });
    return reply.redirect(`/uploads/${upload.id}#map`, 303);
  }

  async function fix(request: FastifyRequest, reply: FastifyReply) {
    const found = await editable(request, reply);
    if (found === undefined) return reply;
    const { upload, table } = found;
    const json = request.headers['content-type']?.startsWith('application/json') === true;
    const posted = json ? rowOfJson(request.body) : rowsOfForm(request.body as Record<string, unknown>);
    if (posted === undefined) return reply.code(400).send({ error: 'expected {line, cells, out}' });
    const by = personOf(signedIn(request).user);
    const { fixes, out, olds } = changes(table, await spec.uploads.fixes(upload), posted, by);
    const checked = await spec.uploads.fix(upload, fixes, out, check, by);
    await spec.audit.recordAll(actorOf(request as SignedIn), upload.id, auditOf(upload, table, fixes, olds, out));
    if (!json) return reply.redirect(`/uploads/${upload.id}#fix`, 303);
    const now = await spec.uploads.fixes(checked);
    const gate = await spec.fourEyes.gate(checked, now, await spec.uploads.hash(checked, now), signedIn(request).user);
    return reply.send(answer(checked, table, { csrf: signedIn(request).csrf, service: spec.service, gate }));
  }
}

const signedIn = (request: FastifyRequest) => (request as SignedIn).session;

/**
 * The audit lines of a post of the grid: each cell changed, its old and new values masked as the trail keeps them,
 * and each row left out or put back.
 */
function auditOf(
  upload: Upload,
  table: UploadTable,
  fixes: readonly Fix[],
  olds: readonly string[],
  out: ReadonlyMap<number, boolean>,
): Array<{ action: string; detail: Record<string, unknown> }> {
  const fields = columnFields(table.header, upload.mapping ?? {});
  const was = new Set(upload.leftOut ?? []);
  return [
    ...fixes.map((fix, i) => {
      const field = fields[table.header.indexOf(fix.column)];
      const masked = { old: maskValue(field, olds[i] ?? ''), new: maskValue(field, fix.value) };
      return {
        action: 'cell changed',
        detail: { line: fix.line, column: fix.column, field: field ?? null, ...masked },
      };
    }),
    ...[...out]
      .filter(([line, left]) => left !== was.has(line))
      .map(([line, left]) => ({ action: left ? 'row left out' : 'row put back', detail: { line } })),
  ];
}

const idOf = (request: FastifyRequest): string => (request.params as { id: string }).id;

/**
 * What web/fix.js is told: the check's counts and each shown row's marks (the messages only: no cell's value), and
 * the parts of the page that say the counts, drawn here as the page draws them (its words are the server's only);
 * none when the check found the file unusable this time: the page is then loaded again, to say why.
 */
function answer(upload: Upload, table: UploadTable, send: { csrf: string; service: string; gate: SendGate }) {
  const marks = marksByLine(upload, table.header);
  const c = upload.check;
  return {
    check: c && { rows: c.rows, ok: c.ok, invalid: c.invalid, payers: c.payers, withBank: c.withBank },
    marks: Object.fromEntries(marks),
    leftOut: upload.leftOut ?? [],
    page:
      c?.unusable === undefined
        ? {
            facts: toText(checkFacts(upload)),
            send: toText(sendSection(upload, send.csrf, send.service, send.gate)),
            title: fixTitle(upload),
            said: checkWords(upload),
          }
        : undefined,
  };
}

function rowOfJson(body: unknown): RowPost[] | undefined {
  const row = body as Partial<RowPost> | undefined;
  if (row === undefined || !Number.isInteger(row.line) || typeof row.cells !== 'object' || row.cells === null)
    return undefined;
  if (Object.values(row.cells).some((v) => typeof v !== 'string')) return undefined;
  return [{ line: row.line!, cells: row.cells, out: row.out === true }];
}

/** The grid form: every shown row's line (`lines`), its cells (`c:<line>:<column>`), and `out:<line>` when ticked. */
function rowsOfForm(body: Record<string, unknown>): RowPost[] {
  const lines = [body.lines ?? []].flat().map(Number).filter(Number.isInteger);
  return lines.map((line) => {
    const cells: Record<string, string> = {};
    for (const [name, value] of Object.entries(body)) {
      const at = /^c:(\d+):(\d+)$/.exec(name);
      if (at && Number(at[1]) === line && typeof value === 'string') cells[at[2]!] = value;
    }
    return { line, cells, out: body[`out:${line}`] !== undefined };
  });
}

/**
 * The cells whose value differs from what the row holds now (as uploaded, or as last fixed), with the values they
 * held (`olds`, by the fix's place), and the rows' left-out ticks.
 */
function changes(
  table: UploadTable,
  earlier: readonly Fix[],
  posted: readonly RowPost[],
  by: Person,
): { fixes: Fix[]; out: Map<number, boolean>; olds: string[] } {
  const now = fixedRows(table, earlier);
  const at = new Date().toISOString();
  const fixes: Fix[] = [];
  const olds: string[] = [];
  const out = new Map<number, boolean>();
  for (const row of posted) {
    const texts = now.get(row.line);
    if (texts === undefined) continue;
    out.set(row.line, row.out);
    for (const [index, value] of Object.entries(row.cells)) {
      const column = table.header[Number(index)];
      if (column === undefined || texts[Number(index)] === value) continue;
      fixes.push({ line: row.line, column, value, at, by });
      olds.push(texts[Number(index)] ?? '');
    }
  }
  return { fixes, out, olds };
}
