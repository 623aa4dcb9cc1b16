import { extname } from 'node:path';
import { PayerOnboardError } from '../core/errors.js';
import type { InboxRunInput } from '../inbox/Inbox.js';
import { readOwnCsv } from '../output/readOwnCsv.js';
import { run } from '../pipeline/run.js';
import type { RunContext } from '../pipeline/RunSession.js';
import { readStatusInputs } from '../status/statusInputs.js';

/** What the tool found in an uploaded file, as the upload page shows it. */
export interface UploadCheck {
  format: string;
  rows: number;
  ok: number;
  invalid: number;
  /** Distinct payers a run of the file sends, and how many of them it gives a bank account it takes. */
  payers: number;
  withBank: number;
  warnings: string[];
  /** Rows a run refuses: line, id and the tool's message (no cell value: results.csv holds none). */
  problems: Array<{ line: string; clientUserId: string; error: string }>;
  /** Why the file cannot be used at all (no header, an unsupported type), when it cannot. */
  unusable?: string;
}

/**
 * `validate` of the file into `out`, and its payers counted: what a run of it would find, with nothing sent. `lines`:
 * for a file written from the upload (mapped or fixed), the upload's line of each of its lines, so problems are
 * reported where the person's own file has them.
 */
export async function checkFile(
  path: string,
  out: string,
  input: InboxRunInput,
  context: RunContext,
  lines?: ReadonlyMap<number, number>,
): Promise<UploadCheck> {
  const empty = { format: extname(path).slice(1), rows: 0, ok: 0, invalid: 0, payers: 0, withBank: 0, warnings: [] };
  try {
    // Nothing of the check goes to serve's log: its lines (columns not understood, say) can quote the file's cells.
    const quiet: RunContext = { ...context, stderr: undefined };
    const summary = await run({ ...input, inputs: [path], out, command: 'validate', progress: false }, quiet);
    const lineOf = (line: string) => (lines === undefined ? line : String(lines.get(Number(line)) ?? line));
    const problems: UploadCheck['problems'] = [];
    for await (const r of readOwnCsv(summary.outputs.results)) {
      if (r.outcome !== 'invalid') continue;
      problems.push({ line: lineOf(r.line ?? ''), clientUserId: r.clientUserId ?? '', error: r.error ?? '' });
      if (problems.length === 200) break;
    }
    const { targets } = await readStatusInputs([path], { reading: {} }).catch(() => ({ targets: [] }));
    return {
      format: summary.inputs[0]?.format ?? empty.format,
      rows: summary.rows.total,
      ok: summary.rows.ok,
      invalid: summary.rows.invalid,
      // Payers with a row a run takes, and of them those whose bank row it takes too.
      payers: targets.filter((t) => t.invalid.payer !== true).length,
      withBank: targets.filter((t) => t.hasBank && t.invalid.payer !== true && t.invalid.bank !== true).length,
      warnings: summary.warnings,
      problems,
    };
  } catch (error) {
    if (!(error instanceof PayerOnboardError)) throw error;
    return { ...empty, problems: [], unusable: error.message };
  }
}
