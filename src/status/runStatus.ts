import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import pLimit, { type LimitFunction } from 'p-limit';
import { AbortedError } from '../errors.js';
import { createApiClient } from '../execute/createApiClient.js';
import type { ApiClient } from '../execute/ApiClient.js';
import { readingOptions } from '../input/openInput.js';
import { readyForAccount } from '../plan/verdict.js';
import { type JournaledPayer, journaledPayers } from '../journal/RowJournal.js';
import { journalToRead, stateDirs } from '../journal/stateDir.js';
import { resolveRunOptions, type RunOptionsInput } from '../options/resolve.js';
import { OrderedSink } from '../output/results.js';
import { resolveConnection } from '../options/connection.js';
import { makeRunId, placesOf, type RunContext, RunSession, runSpan } from '../pipeline/RunSession.js';
import {
  emptyCounts,
  formatCounts,
  payerStatus,
  type PayerStatus,
  STATUS_COLUMNS,
  type StatusSummary,
  statusRecord,
} from './payerStatus.js';
import { STATUS_TABLE_LIMIT, writeStatusReport } from '../report/statusReport.js';
import { type StatusReadTotals, statusTargets } from './statusInputs.js';

/** A payer's two reads; the accounts are undefined when they were not read. */
type StatusReads = Parameters<typeof payerStatus>[1];

/** `run`'s options as `status` takes them (`exitCode`: exit 1 while some payer is not yet payable). */
export type StatusInput = RunOptionsInput;

/**
 * Where each payer of the inputs stands now, asked of the service: one status read per distinct payer, and the
 * read of its stored bank accounts when it has a bank row (or is compliant, when the only question left is its
 * account). Writes nothing to the service. Writes status.csv in input order, summary.json and report.html.
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
  try {
    const client = session.client!;
    session.logger.info({ runId, command: 'status', baseUrl: session.baseUrl }, 'status started');
    const ids: string[] = [];
    // The payers read so far: the bar's total grows while the input is still being read.
    const progress = session.progress(stderr, () => ids.length, options.progress, {
      unit: 'payers',
      shown: ['payable', 'waiting', 'not read'],
    });
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

    // Payers are asked about as they are read. What the journal kept (links, whether a payer was ready for a bank
    // account when last seen) is read first; what only the whole input settles (links a results.csv carries) is
    // waited for before a payer's line is made, never before its first read.
    let allRead!: (read: boolean) => void;
    const inputRead = new Promise<boolean>((done) => (allRead = done));
    let journalError: unknown;
    const journaled = journaledLinks().catch((error: unknown) => {
      journalError = error;
      return (_id: string): JournaledPayer | undefined => undefined;
    });
    const slots = pLimit(options.concurrency);
    const checks: Array<Promise<void>> = [];
    let inputError: unknown;
    try {
      for (let next = first; !next.done; next = await targets.next()) {
        const target = next.value;
        const seq = sink.reserve();
        ids.push(target.clientUserId);
        checks.push(
          (async () => {
            const memory = (await journaled)(target.clientUserId);
            const reads = await checkPayer(client, target.clientUserId, memory?.ready === true, slots);
            if (!(await inputRead)) return;
            const { checkedAt: _, ready: __, ...kept } = memory ?? {};
            const known = { ...target.links, ...kept };
            sink.complete(seq, payerStatus(target.clientUserId, reads, known, new Date(), client.stopped()?.message));
          })(),
        );
      }
    } catch (error) {
      // A row the reader cannot get past: nothing more is asked, and no status.csv stands for the whole input.
      inputError = error;
      client.stop('interrupted', 'stopped: the input could not be read to its end');
    }
    allRead(inputError === undefined);
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
    await Promise.all(checks);
    if (inputError !== undefined) {
      progress.stop();
      await session.closeResults();
      rmSync(session.outputs.results, { force: true });
      throw inputError;
    }
    if (journalError !== undefined) throw journalError;
    await sink.whenUnwrittenAtMost(0).catch(() => undefined);
    if (sink.error) session.onWriteFailure(sink.error);
    progress.stop();
    await session.closeResults();

    const aborted = session.stopped('the rest of the payers were not asked about');
    const total = ids.length;
    const exitCode = aborted ? 3 : counts.unread > 0 ? 1 : options.exitCode && counts.payable < total ? 1 : 0;
    const { requests, byStatus, retries } = client.stats();
    const summary: StatusSummary = {
      runId,
      command: 'status',
      ...runSpan(startedAt),
      baseUrl: connection.baseUrl,
      inputs: totals.inputs,
      payers: { total, ...counts },
      requests: { total: requests, byStatus, retries },
      ...(aborted ? { aborted: { reason: aborted.reason, message: aborted.message } } : {}),
      warnings,
      exitCode,
      outputs: {
        dir: session.outputs.dir,
        status: session.outputs.results,
        summary: session.outputs.summary,
        log: session.outputs.log,
        report: session.outputs.report,
      },
    };
    session.logger.info({ payers: summary.payers, requests: summary.requests, exitCode, aborted }, 'status finished');
    await session.writeSummary(summary);
    try {
      writeStatusReport(summary, notPayable);
    } catch (error) {
      // status.csv is on disk already: a report that cannot be written is a warning, not a failed command.
      stderr?.write(`warning: ${summary.outputs.report} not written: ${(error as Error).message}\n`);
    }
    stderr?.write(formatStatusSummary(summary));
    return summary;
  } finally {
    await session.close();
  }

  /**
   * The payer's reads: its status, and its stored bank accounts only where its line depends on them (a payer ready
   * for an account: payable, or its account still pending). Read together with the status where the journal saw the
   * payer ready, one after the other otherwise: a read costs as much of the rate cap as a create.
   */
  async function checkPayer(
    client: ApiClient,
    id: string,
    readyBefore: boolean,
    slots: LimitFunction,
  ): Promise<StatusReads> {
    const [payer, early] = await slots(() =>
      Promise.all([client.readPayer(id), readyBefore ? client.readPaymentDetails(id) : undefined]),
    );
    if (early !== undefined) return { payer, accounts: early };
    const matters = payer.ok && payer.body.found && readyForAccount(payer.body);
    return { payer, accounts: matters ? await slots(() => client.readPaymentDetails(id)) : undefined };
  }

  /** What the journal kept of these payers: their links (a payers file carries none; an agreement link is still wanted). */
  function journaledLinks(): Promise<(clientUserId: string) => JournaledPayer | undefined> {
    // Read without its lock, in the old default place until a run has moved it: status writes nothing to it.
    const path = journalToRead(stateDirs(options.stateDir, places), connection.baseUrl, connection.apiKey);
    return journaledPayers(path);
  }
}

/** What stderr ends with: the payers counted by where they stand, then where status.csv is. */
export function formatStatusSummary(s: StatusSummary): string {
  const lines = [
    `payer-onboard status: ${s.payers.total} payers in ${(s.durationMs / 1000).toFixed(1)} s; ${s.payers.payable} payable`,
    formatCounts(s.payers),
  ];
  if (s.aborted) lines.push(`stopped: ${s.aborted.message}`);
  lines.push(`status: ${s.outputs.status}`);
  return `${lines.filter((l) => l !== '').join('\n')}\n`;
}
