import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { makeRunId, type RunContext } from '../pipeline/RunSession.js';
import type { StatusSummary } from './payerStatus.js';
import { runStatus, type StatusInput } from './runStatus.js';

/**
 * `status` of payers named by id rather than by a file of the person's: the ids are written to a scratch file in
 * `dir` (mode 0600, gone afterwards), and the output goes to `dir/<name>-<run id>/`. Never exits non-zero for a payer
 * not yet payable: the caller reads status.csv.
 */
export async function statusOfIds(
  ids: readonly string[],
  dir: string,
  name: string,
  input: Omit<StatusInput, 'inputs' | 'out'>,
  context: RunContext,
): Promise<StatusSummary> {
  const runId = makeRunId(new Date());
  const scratch = join(dir, `.${name}-${runId}.csv`);
  writeFileSync(scratch, stringify([['clientUserId'], ...ids.map((id) => [id])]), { mode: 0o600 });
  try {
    const out = join(dir, `${name}-${runId}`);
    return await runStatus({ ...input, inputs: [scratch], out, exitCode: false }, { ...context, runId });
  } finally {
    rmSync(scratch, { force: true });
  }
}
