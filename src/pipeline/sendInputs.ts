import type { ApiClient } from '../execute/ApiClient.js';
import { PayerTurns, type RowDeps } from '../execute/executeRow.js';
import { openInput } from '../input/openInput.js';
import { RowJournal } from '../journal/RowJournal.js';
import type { RunAudit } from '../journal/RunAudit.js';
import { ROW_FILE_KINDS, RowFiles, RowFileSet } from '../output/RowFiles.js';
import { ReportTally } from '../report/collectReportData.js';
import type { PayerResult } from '../core/types.js';
import type { CheckedInputs } from './checkInputs.js';
import type { Reached, RunFacts } from './RunFacts.js';
import type { RunOutputs, RunSession } from './RunSession.js';
import { expectedRows, type Job } from './scanInputs.js';
import { type SendContext, sameId, sendRows } from './sendRows.js';

/** What the inputs' sends share: all of `SendContext` but each input's own failed and pending files. */
type SharedSend = Omit<SendContext, 'rowFiles'>;

/**
 * Pass 2: every input again, its valid rows sent, every row written to results and the failed or pending files, each
 * sent row's end in the audit trail (`audit`) with its journal records. Returns the tally of the rows as written (the
 * summary's counts, report.html's rows).
 */
export async function sendInputs(
  session: RunSession,
  checked: CheckedInputs,
  facts: RunFacts,
  reached: Reached,
  audit?: RunAudit,
): Promise<ReportTally> {
  const { scanned, warnings } = checked;
  const { options, command, runId, startedAt, context } = facts;
  const { logger, client, journal, baseUrl } = session;
  logger.info(
    { runId, command, inputs: scanned.map((j) => j.input.file.name), baseUrl, sandbox: session.sandboxed },
    'run started',
  );
  for (const warning of warnings) logger.warn(warning);

  // What report.html shows of the rows, and the summary's counts: gathered as each row is written.
  const tally = new ReportTally();
  reached.tally = tally;
  // An input read once has no count yet: its rows so far, stretched by the share of its bytes read.
  const total = scanned.some((job) => job.once)
    ? () => expectedRows(scanned)
    : scanned.reduce((n, job) => n + job.rows, 0);
  const progress = session.progress(context.stderr, total, options.progress);
  const rowJournal = journal && new RowJournal(journal, audit);
  const deps = client && rowDeps(client, rowJournal, facts, scanned);
  const onlyMatched = options.only === undefined ? undefined : new Set<string>();
  try {
    await sendEach(session.outputs, checked, {
      options,
      client,
      deps,
      logger,
      results: session.results,
      progress,
      tally,
      payerResults: scanned.some((job) => job.kind === 'bank-details')
        ? new Map<string, Promise<PayerResult>>()
        : undefined,
      signal: context.signal,
      today: startedAt,
      seen: checked.duplicates,
      readers: context.readers,
      onlyMatched,
      onWriteFailure: session.onWriteFailure,
    });
    // A mistyped id would otherwise look like a trial that went well: nothing of it sent, and nothing said.
    const unmatched = (options.only ?? []).filter((id) => !onlyMatched?.has(sameId(id)));
    if (unmatched.length > 0) {
      const warning = `--only: no row of the inputs has clientUserId ${unmatched.map((id) => `"${id}"`).join(', ')}: nothing was sent for ${unmatched.length === 1 ? 'it' : 'them'}`;
      logger.warn(warning);
      context.stderr?.write(`warning: ${warning}\n`);
    }
  } finally {
    const gate = deps?.ctx.knowledge.gate;
    if (gate !== undefined && gate !== 'unknown') rowJournal?.rememberGate(gate);
    progress.stop();
    await session.closeResults();
  }
  return tally;
}

/** What every row's plan shares: the run's steps and limits, and what the run learns about the service. */
function rowDeps(client: ApiClient, rowJournal: RowJournal | undefined, facts: RunFacts, scanned: Job[]): RowDeps {
  const { options } = facts;
  return {
    client,
    journal: rowJournal,
    ctx: {
      steps: options.steps,
      compliancePath: options.compliancePath,
      retries: options.retries,
      maxWaitDays: options.maxWait,
      now: facts.startedAt,
      knowledge: { gate: rowJournal?.gate() ?? 'unknown' },
      journalWhole: rowJournal?.whole() ?? false,
      createUnmatched: options.createUnmatchedAccounts,
    },
    taken: new Set(),
    created: new Set(),
    turns: new PayerTurns(),
    inDoubt: new Map(),
    ...(scanned.some((job) => job.kind === 'bank-details') ? { claims: new Map<string, string>() } : {}),
  };
}

/** Each input in turn, with the failed and pending files of them all. */
async function sendEach(outputs: RunOutputs, checked: CheckedInputs, shared: SharedSend): Promise<void> {
  // The failed and pending files of every input: one workbook per .xlsx input and kind, and no name taken twice
  // or taken from a file the run reads.
  const rowFileSet = new RowFileSet(checked.scanned.map((job) => job.input.file.path));
  try {
    for (const job of checked.scanned) await sendInput(job, checked, outputs, rowFileSet, shared);
  } finally {
    await rowFileSet.close().catch(shared.onWriteFailure);
  }
}

/** One input: reopened, its rows sent, its failed and pending files closed and listed in the outputs. */
async function sendInput(
  job: Job,
  checked: CheckedInputs,
  outputs: RunOutputs,
  rowFileSet: RowFileSet,
  shared: SharedSend,
): Promise<void> {
  // Reopen each input for pass 2: pass 1's streams are spent, and nothing was kept in memory.
  // With its own reading: the columns its values named in pass 1 are read the same way.
  const reopened = job.once ? job.input : await openInput(job.input.file, job.input.reading ?? checked.reading);
  const rowFiles = new RowFiles(
    outputs.dir,
    reopened.file,
    reopened.header,
    reopened.dialect,
    rowFileSet,
    reopened.positions,
  );
  try {
    // Written out, not `{ ...shared, rowFiles }`: on Node 20 a literal that spreads first stores what follows slowly.
    await sendRows(
      { ...job, input: reopened },
      {
        options: shared.options,
        client: shared.client,
        deps: shared.deps,
        logger: shared.logger,
        results: shared.results,
        rowFiles,
        progress: shared.progress,
        tally: shared.tally,
        payerResults: shared.payerResults,
        signal: shared.signal,
        today: shared.today,
        seen: shared.seen,
        readers: shared.readers,
        onlyMatched: shared.onlyMatched,
        onWriteFailure: shared.onWriteFailure,
      },
    );
  } finally {
    // A file that breaks partway still gets its failed and pending files closed and listed: they hold its rows.
    await rowFiles.close().catch(shared.onWriteFailure);
    const written = rowFiles.written();
    for (const kind of ROW_FILE_KINDS) {
      const path = written[kind];
      if (path !== undefined && !outputs[kind].includes(path)) outputs[kind].push(path);
    }
  }
}
