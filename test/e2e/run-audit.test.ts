import { hostname, userInfo } from 'node:os';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { journalName } from '../../src/journal/stateDir.js';
import { openStore } from '../../src/store/openStore.js';
import type { AuditLine } from '../../src/store/Store.js';
import { API_KEY, harness, payerRow, payersCsv } from '../helpers/runHarness.js';
import { spawnBin } from '../helpers/spawnBin.js';

// A run from the command line enters the audit trail as the OS user and host: its start with the file's name, each
// bank account it added, each row's end with the service's answer, and its end with the counts. No value of a row is
// in it; validate and --dry-run write nothing.

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

/** `payer-onboard ARGS` over the harness's sandbox and state dir, as an operator runs it. */
async function bin(args: string[]) {
  const common =
    args[0] === 'validate' ? [] : ['--base-url', h.sandbox.url, '--state-dir', 'state', '--rate', '0', '--no-progress'];
  const done = await spawnBin([...args, ...common], { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY } }).done;
  return { ...done, summary: done.stdout ? (JSON.parse(done.stdout) as { runId: string }) : undefined };
}

/** The store's audit lines, oldest first, and the mails of these payers. */
async function trail(ids: string[] = []) {
  const store = await openStore({ stateDir: h.tmp.path('state') });
  try {
    const service = journalName(h.sandbox.url, API_KEY);
    const lines = (await store.controls(service).auditLines({}, 0, 1000)).reverse();
    return { lines, mails: await store.directory(service).mails(ids) };
  } finally {
    await store.close();
  }
}

const detail = (line: AuditLine) => JSON.parse(line.detail) as Record<string, unknown>;

it('a CLI run: who is os:USER@HOST, its start, each account added, each row with its outcome, its end; nothing personal', async () => {
  const ids = ['aud-1', 'aud-2', 'aud-3'];
  h.tmp.write('payers.csv', payersCsv(ids, { 'aud-2': { firstName: 'Grace', lastName: 'Hopper' } }));
  // The first row's bank account is refused by the service (one row at a time): that row fails with its code.
  h.sandbox.script([{ route: 'payment-details', status: 400, body: { statusCode: 400, message: 'refused' } }]);
  const first = await bin(['run', 'payers.csv', '--json', '--concurrency', '1', '--out', 'out-1']);
  expect(first.code, first.stderr).toBe(1);
  const runId = first.summary!.runId;

  const { lines } = await trail();
  const who = `os:${userInfo().username}@${hostname()}`;
  expect(new Set(lines.map((l) => `${l.who} ${l.address}`))).toEqual(new Set([`${who} ${hostname()}`]));
  const rowLines = lines.filter((l) => l.action === 'run row');
  expect(lines.map((l) => `${l.action} ${l.subject}`)).toEqual([
    `run started ${runId}`,
    'run row aud-1',
    'bank account added aud-2',
    'run row aud-2',
    'bank account added aud-3',
    'run row aud-3',
    `run finished ${runId}`,
  ]);
  expect(detail(lines[0]!)).toEqual({ inputs: ['payers.csv'] });
  expect(detail(lines[2]!)).toEqual({ run: runId, nth: 1 });
  expect(rowLines.map(detail)).toEqual([
    {
      run: runId,
      row: 'payers.csv:2',
      outcome: 'failed',
      steps: { compliance: 'ok', 'payment-details': 'failed', agreement: 'ok' },
      kycStatus: 'approved',
      agreementStatus: 'completed',
      failed: { 'payment-details': 'HTTP 400' },
    },
    {
      run: runId,
      row: 'payers.csv:3',
      outcome: 'ok',
      steps: { compliance: 'ok', 'payment-details': 'ok', agreement: 'ok' },
      kycStatus: 'approved',
      agreementStatus: 'completed',
    },
    expect.objectContaining({ row: 'payers.csv:4', outcome: 'ok' }),
  ]);
  expect(detail(lines.at(-1)!)).toMatchObject({
    rows: { total: 3, ok: 2, failed: 1, waiting: 0, invalid: 0, skipped: 0 },
    exitCode: 1,
  });

  // Not one value of the rows: names, e-mail, birth date, address, phone, SSN, bank numbers.
  const text = JSON.stringify(lines);
  const personal = ['Ada', 'Lovelace', 'Grace', 'Hopper', '@example.com', '1985-12-10', 'Analytical', 'Springfield'];
  for (const value of [...personal, '2175550100', '123-45-6789', '123456789', '021000021', 'First Midwest'])
    expect(text).not.toContain(value);
});

it('a second bank account for a payer asks for their mail; the first asks for none; validate and --dry-run write nothing', async () => {
  h.tmp.write('first.csv', payersCsv(['two-1', 'one-1']));
  expect((await bin(['run', 'first.csv', '--out', 'out-1'])).code).toBe(0);
  const before = (await trail()).lines.length;
  // The same payers again: one with another account, the other as it was; and a payer new to the journal.
  const second = [
    payerRow('two-1', { accountNumber: '000987654321' }),
    payerRow('one-1'),
    payerRow('new-1', { accountNumber: '000555555555' }),
  ];
  h.tmp.write('second.csv', `${payersCsv([]).trim()}\n${second.join('\n')}\n`);
  for (const command of [['validate'], ['run', '--dry-run']]) {
    const checked = await bin([...command, 'second.csv', '--out', `out-${command.length}`]);
    expect(checked.code, checked.stderr).toBe(0);
  }
  expect((await trail()).lines.length).toBe(before);

  const run = await bin(['run', 'second.csv', '--out', 'out-2']);
  expect(run.code, run.stderr).toBe(0);
  const { lines, mails } = await trail(['two-1', 'one-1', 'new-1']);
  const added = lines.slice(before).filter((l) => l.action === 'bank account added');
  // Rows run side by side: their lines come in the order the rows ended.
  expect(added.map((l) => [l.subject, detail(l).nth, detail(l).mail]).sort()).toEqual([
    ['new-1', 1, undefined],
    ['two-1', 2, 'bank-added-2'],
  ]);
  // Due until serve's mail worker sends it (serve is not running here).
  expect(mails.map((m) => `${m.clientUserId} ${m.step} ${m.state}`)).toEqual(['two-1 bank-added-2 due']);
});
