import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import pLimit from 'p-limit';
import { AbortedError } from '../core/errors.js';
import { createApiClient } from '../execute/createApiClient.js';
import { readingOptions } from '../input/openInput.js';
import { journaledPayers } from '../journal/RowJournal.js';
import { journalMayHold } from '../journal/openJournal.js';
import { openStore } from '../store/openStore.js';
import type { Store } from '../store/Store.js';
import { journalPlace, stateDirs, type UserPlaces } from '../journal/stateDir.js';
import { resolveRunOptions, type RunOptions, type RunOptionsInput } from '../options/resolve.js';
import type { Progress } from '../output/Progress.js';
import { OrderedSink } from '../output/results.js';
import { resolveConnection, resolveDatabaseUrl } from '../options/connection.js';
import { makeRunId, placesOf, type RunContext, RunSession, runSpan } from '../pipeline/RunSession.js';
import {
  type CategoryCounts,
  emptyCounts,
  formatCounts,
  mailRefusal,
  type PayerStatus,
  STATUS_COLUMNS,
  type StatusSummary,
  statusRecord,
} from './payerStatus.js';
import { STATUS_TABLE_LIMIT, writeStatusReport } from './statusReport.js';
import { payerWho } from '../report/payerNames.js';
import { type Asking, askPayers } from './askPayers.js';
import { type StatusReadTotals, statusTargets } from './statusInputs.js';

/** `run`'s options as `status` takes them (`exitCode`: exit 1 while some payer is not yet payable). */
export type StatusInput = RunOptionsInput;

/**
 * Where each payer of the inputs stands now, asked of the service: one status read per distinct payer, and the
 * read of its stored bank accounts where its line depends on them (a payer ready for one). Writes nothing to the
 * service. Writes status.csv in input order, summary.json and report.html.
 */
export async function runStatus(input: StatusInput, context: RunContext = {}): Promise<StatusSummary> {
  const places = placesOf(context);
  const { env, cwd } = places;
  const stderr = context.stderr;
  // The built-in sandbox lives only as long as one command: there would be no payer in it to ask about.
  const options = resolveRunOptions({ ...input, sandbox: false }, env);
  const startedAt = new Date();
  const runId = context.runId ?? makeRunId(startedAt);
  const connection = resolveConnection(options, env, cwd);

  const paths = [...options.inputs, ...(options.bankDetails === undefined ? [] : [options.bankDetails])];
  const totals: StatusReadTotals = { inputs: [], withoutId: 0, badIds: 0 };
  const targets = statusTargets(
    paths.map((p) => resolve(cwd, p)),
    { reading: readingOptions(options, cwd), sheet: options.sheet, signal: context.signal },
    totals,
  )[Symbol.asyncIterator]();
  // The first payer before anything is opened: an input the command cannot use at all is refused with no output.
  const first = await targets.next();
  if (context.signal?.aborted) throw new AbortedError('interrupted while reading the input: nothing was asked');
  const warnings: string[] = [];

  const session = await RunSession.open({
    results: { name: 'status.csv', columns: STATUS_COLUMNS },
    createClient: createApiClient,
    connection,
    runId,
    options,
    cwd,
    warnings,
    context,
  });
  let journal: ReturnType<typeof journaledLinks> | undefined;
  try {
    const client = session.client!;
    session.logger.info({ runId, command: 'status', baseUrl: session.baseUrl }, 'status started');
    const ids: string[] = [];
    // The payers read so far: the bar's total grows while the input is still being read.
    const progress = session.progress(stderr, () => ids.length, options.progress, {
      unit: 'payers',
      shown: ['payable', 'waiting', 'not read'],
    });
    const lines = statusLines(session, progress);
    journal = journaledLinks(options, places, connection);
    const asking = {
      client,
      journaled: journal.links,
      mailRefused: journal.mailRefused,
      who: journal.who,
      slots: pLimit(options.concurrency),
      sink: lines.sink,
    };
    const { asked, inputError } = await askPayers(first, targets, asking, ids);
    warnUnasked(totals, warnings, stderr);
    await Promise.all(asked);
    if (inputError !== undefined) {
      // Some payers were never read: a status.csv would not stand for the whole input.
      progress.stop();
      await session.closeResults();
      rmSync(session.outputs.results, { force: true });
      throw inputError;
    }
    if (journal.error !== undefined) throw journal.error;
    await lines.sink.whenUnwrittenAtMost(0).catch(() => undefined);
    if (lines.sink.error) session.onWriteFailure(lines.sink.error);
    progress.stop();
    await session.closeResults();

    const summary = statusSummary(
      session,
      { runId, startedAt, options, connection, totals, warnings },
      ids.length,
      lines.counts,
    );
    await finishStatus(session, summary, lines.notPayable, stderr);
    return summary;
  } finally {
    await journal?.close();
    await session.close();
  }
}

/** status.csv's sink, and what its lines add up to: the counts by category, and report.html's payers. */
function statusLines(session: RunSession, progress: Progress) {
  const counts = emptyCounts();
  // What report.html lists: the payers not yet payable, as many as its table shows.
  const notPayable: PayerStatus[] = [];
  const sink = new OrderedSink<PayerStatus>(async (status) => {
    counts[status.category]++;
    progress.add(
      status.category === 'payable'
        ? 'payable'
        : status.category === 'unread' || status.category === 'skipped'
          ? 'not read'
          : 'waiting',
    );
    if (status.category !== 'payable' && notPayable.length < STATUS_TABLE_LIMIT) notPayable.push(status);
    await session.results.write(statusRecord(status));
  });
  return { sink, counts, notPayable };
}

/**
 * What the journal kept of these payers: their links (a payers file carries none; an agreement link is still wanted),
 * each payer looked up by its key as it is asked about, in a store opened once for the whole read (not the whole
 * journal read: a status of one payer costs the same with 100,000 in the journal). A journal that cannot be read
 * leaves every payer unknown to it, and `error` says why once the reads are done.
 */
function journaledLinks(
  options: RunOptions,
  places: UserPlaces,
  connection: { baseUrl: string; apiKey: string },
): {
  links: Asking['journaled'];
  mailRefused: NonNullable<Asking['mailRefused']>;
  who: NonNullable<Asking['who']>;
  error?: unknown;
  close(): Promise<void>;
} {
  // Read without its lock: a run may be writing it.
  const state = stateDirs(options.stateDir, places);
  const databaseUrl = resolveDatabaseUrl(options, places.env, places.cwd);
  const place = journalPlace(state, connection.baseUrl, connection.apiKey, databaseUrl);
  let opened: Promise<Store | undefined> | undefined;
  const store = () => (opened ??= journalMayHold(place) ? openStore(place) : Promise.resolve(undefined));
  const lookUp =
    <T>(find: (open: Store, id: string) => Promise<T | undefined>) =>
    async (id: string): Promise<T | undefined> => {
      try {
        const open = await store();
        return open === undefined ? undefined : await find(open, id);
      } catch (error) {
        read.error ??= error;
        return undefined;
      }
    };
  const read: ReturnType<typeof journaledLinks> = {
    links: lookUp(async (open, id) => (await journaledPayers({ ...place, open }, [id]))(id)),
    mailRefused: lookUp(async (open, id) => mailRefusal(await open.directory(place.service).mails([id]))),
    who: lookUp(async (open, id) => payerWho((await open.directory(place.service).entries([id])).get(id))),
    close: async () => {
      await (await opened?.catch(() => undefined))?.close();
    },
  };
  return read;
}

/** The rows the inputs had that no payer could be asked for: a warning each kind, in summary.json and on stderr. */
function warnUnasked(totals: StatusReadTotals, warnings: string[], stderr: RunContext['stderr']): void {
  const rows = (n: number) => `${n} row${n === 1 ? ' has' : 's have'}`;
  const unasked = [
    totals.withoutId > 0 ? `${rows(totals.withoutId)} no clientUserId: not asked about` : undefined,
    totals.badIds > 0
      ? `${rows(totals.badIds)} a clientUserId that run refuses ("." or "..", or an invisible character): not asked about`
      : undefined,
  ];
  for (const warning of unasked) {
    if (warning === undefined) continue;
    warnings.push(warning);
    stderr?.write(`warning: ${warning}\n`);
  }
}

/** summary.json of `status`, once every payer's line is written. */
function statusSummary(
  session: RunSession,
  facts: {
    runId: string;
    startedAt: Date;
    options: RunOptions;
    connection: { baseUrl: string };
    totals: StatusReadTotals;
    warnings: string[];
  },
  total: number,
  counts: CategoryCounts,
): StatusSummary {
  const aborted = session.stopped('the rest of the payers were not asked about');
  const exitCode = aborted ? 3 : counts.unread > 0 ? 1 : facts.options.exitCode && counts.payable < total ? 1 : 0;
  const { requests, byStatus, refused, retries } = session.client!.stats();
  return {
    runId: facts.runId,
    command: 'status',
    ...runSpan(facts.startedAt),
    baseUrl: facts.connection.baseUrl,
    inputs: facts.totals.inputs,
    payers: { total, ...counts },
    requests: { total: requests, byStatus, ...(refused ? { refused } : {}), retries },
    ...(aborted ? { aborted: { reason: aborted.reason, message: aborted.message } } : {}),
    warnings: facts.warnings,
    exitCode,
    outputs: {
      dir: session.outputs.dir,
      status: session.outputs.results,
      summary: session.outputs.summary,
      log: session.outputs.log,
      report: session.outputs.report,
    },
  };
}

/** The summary logged, written to summary.json, drawn as report.html and told on stderr. */
async function finishStatus(
  session: RunSession,
  summary: StatusSummary,
  notPayable: PayerStatus[],
  stderr: RunContext['stderr'],
): Promise<void> {
  const { payers, requests, exitCode, aborted } = summary;
  session.logger.info({ payers, requests, exitCode, aborted }, 'status finished');
  await session.writeSummary(summary);
  try {
    writeStatusReport(summary, notPayable);
  } catch (error) {
    // status.csv is on disk already: a report that cannot be written is a warning, not a failed command.
    stderr?.write(`warning: ${summary.outputs.report} not written: ${(error as Error).message}\n`);
  }
  stderr?.write(formatStatusSummary(summary));
}

/** What stderr ends with: the payers counted by where they stand, then where status.csv is. */
function formatStatusSummary(s: StatusSummary): string {
  const lines = [
    `payer-onboard status: ${s.payers.total} payers in ${(s.durationMs / 1000).toFixed(1)} s; ${s.payers.payable} payable`,
    formatCounts(s.payers),
  ];
  // As run says it: the message itself starts with what stopped (`stopped: API key rejected ...`).
  if (s.aborted) lines.push(`ABORTED: ${s.aborted.message}`);
  lines.push(`status: ${s.outputs.status}`);
  lines.push(`report: ${s.outputs.report}`);
  return `${lines.filter((l) => l !== '').join('\n')}\n`;
}
