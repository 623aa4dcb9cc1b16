// The process an upload is read and checked in (UploadReader spawns it, one per job): a file that keeps a reader busy,
// or makes it hold a great deal, holds this process, never serve's event loop, and is killed past its limits. It takes
// one job as plain data over the IPC channel and answers with plain data; it prints nothing (its output could quote
// the file's cells), and a job that fails in a way the readers do not word ends it with no answer.
import { type CheckedUpload, checkUpload, type CheckJob } from './checkUpload.js';
import { type FileFacts, fileFacts, UPLOAD_ROWS } from './fileFacts.js';
import { type RowsKept, readTable, type UploadTable } from './uploadTable.js';

/** What serve asks of an uploaded file: its facts and table (`read`), or its check as it would be sent (`check`). */
export type UploadJob =
  | { kind: 'read'; path: string; facts: boolean; rows: RowsKept }
  | { kind: 'check'; job: CheckJob };

export interface ReadFile {
  facts?: FileFacts;
  table?: UploadTable;
}

/**
 * A test hook, never a setting: the readers are fast on any file now, so the test that serve stays responsive while
 * a check is busy (webhooks answered, SIGTERM obeyed, the time limit kept) makes one busy this many milliseconds, spun
 * synchronously as a hostile file would.
 */
const TEST_BUSY = 'PAYER_ONBOARD_TEST_CHECK_BUSY_MS';

async function work(job: UploadJob): Promise<ReadFile | CheckedUpload> {
  const busyMs = Number(process.env[TEST_BUSY] ?? 0);
  for (const until = Date.now() + busyMs; Date.now() < until; );
  if (job.kind === 'check') return checkUpload(job.job);
  const facts = job.facts ? { facts: await fileFacts(job.path, UPLOAD_ROWS) } : {};
  if (facts.facts?.tooManyRows) return facts;
  const table = await readTable(job.path, job.rows);
  return { ...facts, ...(table === undefined ? {} : { table }) };
}

// As in the bin: no error of a reading is shown with its stack, and csv-parse builds one for every row shorter than
// the header (16 µs a row with the default 10 frames, 4 without: a file of short rows reads four times as fast).
Error.stackTraceLimit = 0;

process.once('message', (job: UploadJob) => {
  work(job).then(
    (value) => process.send?.({ value }),
    () => process.exit(1),
  );
});
// serve gone (killed, say): nothing is waiting for the answer.
process.once('disconnect', () => process.exit(0));
