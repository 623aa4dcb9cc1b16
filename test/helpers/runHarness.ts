import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';
import { run, type RunContext, type RunInput } from '../../src/pipeline/run.js';
import type { Summary } from '../../src/output/results.js';
import { openInput } from '../../src/input/openInput.js';
import type { PayerRowResult } from '../../src/core/types.js';
import { validatePayerRow } from '../../src/validate/validatePayerRow.js';
import { testStore } from './testStore.js';
import { tempDir } from './tempDir.js';

export const API_KEY = 'test-key-5f1d2c3b4a';

/** The bank cells of a payer row left blank: a payer registered without a bank account. */
export const NO_BANK = {
  bankName: '',
  accountName: '',
  currency: '',
  accountNumber: '',
  routingNumber: '',
  accountType: '',
};

/** Collects what a run writes to stderr. */
export function memoryStream() {
  const chunks: string[] = [];
  return {
    stream: { write: (s: string) => chunks.push(String(s)) > 0, isTTY: false } as unknown as NodeJS.WritableStream & {
      isTTY?: boolean;
    },
    text: () => chunks.join(''),
  };
}

/** A sandbox on port 0 and a scratch folder, both gone after the test. */
export async function harness(sandboxOptions: SandboxOptions = {}) {
  const sandbox: SandboxHandle = await startSandbox({ port: 0, apiKey: API_KEY, kycAfter: 0, ...sandboxOptions });
  const tmp = tempDir();
  const store = await testStore(tmp.path('state'));
  return {
    sandbox,
    tmp,
    /** The store the runs keep their journal in: SQLite in `state/`, or a database of this test's own. */
    store,
    async run(
      given: Omit<RunInput, 'inputs'> & { inputs: string[]; blockTiming?: RunContext['blockTiming'] },
      env: NodeJS.ProcessEnv = { PAYER_API_KEY: API_KEY },
      signal?: AbortSignal,
    ) {
      const err = memoryStream();
      const { blockTiming, ...input } = given;
      const summary: Summary = await run(
        {
          baseUrl: sandbox.url,
          out: tmp.path(`out-${Math.random().toString(36).slice(2, 8)}`),
          stateDir: tmp.path('state'),
          rate: 0,
          ...input,
        },
        // Short retry delays: a flaky sandbox's backoff tails would otherwise decide how long a test takes.
        {
          cwd: tmp.dir,
          env: { ...store.env, ...env },
          stderr: err.stream,
          backoff: { baseMs: 50, maxMs: 1000 },
          ...(blockTiming ? { blockTiming } : {}),
          ...(signal ? { signal } : {}),
        },
      );
      return { summary, stderr: err.text(), results: readResults(summary.outputs.results) };
    },
    async close() {
      await sandbox.close();
      await store.close();
      tmp.remove();
    },
  };
}

export type ResultRow = Record<string, string>;

export function readResults(path: string): ResultRow[] {
  return parse(readFileSync(path, 'utf8'), { columns: true }) as ResultRow[];
}

/**
 * A failed or pending payer file read back as the next run reads it: each row validated, with the steps, digest and
 * origin its completedSteps cell carries (and any issue with that cell among the row's issues).
 */
export async function readBackPayerRows(path: string): Promise<PayerRowResult[]> {
  const input = await openInput(path);
  const rows: PayerRowResult[] = [];
  for await (const record of input.records)
    rows.push(validatePayerRow(record.cells, { defaultAgreementCompleted: true }));
  return rows;
}

export const PAYER_HEADER =
  'clientUserId,email,firstName,lastName,beneficiaryType,dateOfBirth,addressLine1,city,state,postcode,country,nationality,phone,ssn,bankName,accountName,currency,accountNumber,routingNumber,accountType,agreementCompleted';

/** A valid CSV payer row with a US bank account; `over` replaces cells by column name. */
export function payerRow(id: string, over: Record<string, string> = {}): string {
  const cells: Record<string, string> = {
    clientUserId: id,
    email: `${id}@example.com`,
    firstName: 'Ada',
    lastName: 'Lovelace',
    beneficiaryType: 'individual',
    dateOfBirth: '1985-12-10',
    addressLine1: '12 Analytical Way',
    city: 'Springfield',
    state: 'IL',
    postcode: '62701',
    country: 'US',
    nationality: 'US',
    phone: '+12175550100',
    ssn: '123-45-6789',
    bankName: 'First Midwest Bank',
    accountName: 'Ada Lovelace',
    currency: 'USD',
    accountNumber: '000123456789',
    routingNumber: '021000021',
    accountType: 'checking',
    // The team collected the payer's signature: the agreement is completed with the registration, as most of the
    // tests that use this row expect. A test of the payer's own signature blanks it.
    agreementCompleted: 'yes',
    ...over,
  };
  return PAYER_HEADER.split(',')
    .map((c) => csvCell(cells[c] ?? ''))
    .join(',');
}

function csvCell(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function payersCsv(ids: string[], over: Record<string, Record<string, string>> = {}): string {
  return `${PAYER_HEADER}\n${ids.map((id) => payerRow(id, over[id])).join('\n')}\n`;
}
