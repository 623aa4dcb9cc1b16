import { join, resolve } from 'node:path';
import pLimit from 'p-limit';
import { AbortedError } from '../errors.js';
import { createApiClient } from '../execute/createApiClient.js';
import type { AccountsAnswer, ApiClient, CallResult } from '../execute/ApiClient.js';
import { readingOptions } from '../input/openInput.js';
import { journaledPayers } from '../journal/RowJournal.js';
import { journalDir } from '../journal/stateDir.js';
import { resolveRunOptions, type RunOptionsInput } from '../options.js';
import { OrderedSink } from '../output/results.js';
import { resolveConnection } from '../pipeline/resolveConnection.js';
import { makeRunId, type RunContext, RunSession, runSpan } from '../pipeline/RunSession.js';
import {
  emptyCounts,
  formatCounts,
  payerStatus,
  type PayerStatus,
  STATUS_COLUMNS,
  skippedStatus,
  type StatusSummary,
  statusRecord,
} from './payerStatus.js';
import { STATUS_TABLE_LIMIT, writeStatusReport } from '../report/statusReport.js';
import { readStatusInputs, type StatusTarget } from './statusInputs.js';

/** `run`'s options as `status` takes them (`exitCode`: exit 1 while some payer is not yet payable). */
export type StatusInput = RunOptionsInput;

/**
 * Where each payer of the inputs stands now, asked of the service: one status read per distinct payer, and the
 * read of its stored bank accounts when it has a bank row (or is compliant, when the only question left is its
 * account). Writes nothing to the service. Writes status.csv in input order, summary.json and report.html.
 */
export async function runStatus(input: StatusInput, context: RunContext = {}): Promise<StatusSummary> {
  const env = context.env ?? {};
  const cwd = context.cwd ?? process.cwd();
  const stderr = context.stderr;
  // The built-in sandbox lives only as long as one command: there would be no payer in it to ask about.
  const options = resolveRunOptions({ ...input, sandbox: false }, env);
  const startedAt = new Date();
  const runId = context.runId ?? makeRunId(startedAt);
  const connection = resolveConnection(options, env, cwd);

  const paths = [...options.inputs, ...(options.bankDetails === undefined ? [] : [options.bankDetails])];
  const read = await readStatusInputs(
    paths.map((p) => resolve(cwd, p)),
    { reading: readingOptions(options, cwd), sheet: options.sheet, signal: context.signal },
  );
  if (context.signal?.aborted) throw new AbortedError('interrupted while reading the input: nothing was asked');
  const warnings: string[] = [];
  if (read.withoutId > 0)
    warnings.push(`${read.withoutId} row${read.withoutId === 1 ? ' has' : 's have'} no clientUserId: not asked about`);
  for (const warning of warnings) stderr?.write(`warning: ${warning}\n`);

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
    const journal = join(
      journalDir(resolve(cwd, options.stateDir), connection.baseUrl, connection.apiKey),
      'journal.jsonl',
    );
    const links = await journaledPayers(
      journal,
      read.targets.map((t) => t.clientUserId),
    );
    const client = session.client!;
    session.logger.info(
      { runId, command: 'status', payers: read.targets.length, baseUrl: session.baseUrl },
      'status started',
    );
    const progress = session.progress(stderr, read.targets.length, options.progress, {
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
    const slots = pLimit(options.concurrency);
    await Promise.all(
      read.targets.map((target) => {
        const seq = sink.reserve();
        const journaled = links.get(target.clientUserId);
        const known = {
          ...target.links,
          ...(journaled?.userId ? { userId: journaled.userId } : {}),
          ...(journaled?.agreementUrl ? { agreementUrl: journaled.agreementUrl } : {}),
          ...(journaled?.kycUrl ? { kycUrl: journaled.kycUrl } : {}),
        };
        return slots(async () => {
          const status = await checkPayer(client, target, known);
          sink.complete(seq, status);
        });
      }),
    );
    await sink.whenUnwrittenAtMost(0).catch(() => undefined);
    if (sink.error) session.onWriteFailure(sink.error);
    progress.stop();
    await session.closeResults();

    const aborted = session.stopped('the rest of the payers were not asked about');
    const total = read.targets.length;
    const exitCode = aborted ? 3 : counts.unread > 0 ? 1 : options.exitCode && counts.payable < total ? 1 : 0;
    const { requests, byStatus, retries } = client.stats();
    const summary: StatusSummary = {
      runId,
      command: 'status',
      ...runSpan(startedAt),
      baseUrl: connection.baseUrl,
      inputs: read.inputs,
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

  async function checkPayer(
    client: ApiClient,
    target: StatusTarget,
    known: StatusTarget['links'],
  ): Promise<PayerStatus> {
    const id = target.clientUserId;
    if (client.stopped()) return skippedStatus(id, known, client.stopped()!.message, new Date());
    // With a bank row both reads go out together; without one, the accounts matter only once the payer is compliant.
    const [payer, early] = await Promise.all([
      client.readPayer(id),
      target.hasBank ? client.readPaymentDetails(id) : undefined,
    ]);
    let accounts: CallResult<AccountsAnswer> | undefined = early;
    if (accounts === undefined && payer.ok && payer.body.isCompliant === true)
      accounts = await client.readPaymentDetails(id);
    return payerStatus(id, { payer, accounts }, known, new Date(), client.stopped()?.message);
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
