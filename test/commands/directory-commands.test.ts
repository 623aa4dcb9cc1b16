import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../src/cli.js';
import { journalName } from '../../src/journal/stateDir.js';
import { payerKeyOf } from '../../src/journal/RowJournal.js';
import { openStore } from '../../src/store/openStore.js';
import { linkTokenHash } from '../../src/store/SqlDirectory.js';
import type { Store } from '../../src/store/Store.js';
import { API_KEY, harness, memoryStream, PAYER_HEADER, payerRow, payersCsv } from '../helpers/runHarness.js';
import { spawnBin } from '../helpers/spawnBin.js';

// `payer-onboard directory import FILE...` and `payer-onboard forget ID...`, as a person types them.

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

/** The commands' flags naming the sandbox's service and the test's store; the key from the environment. */
const where = () => ['--base-url', h.sandbox.url, '--state-dir', h.tmp.path('state')];
const env = () => ({ ...h.store.env, PAYER_API_KEY: API_KEY });

async function payerOnboard(args: string[], given: NodeJS.ProcessEnv = env()) {
  const out = memoryStream();
  const err = memoryStream();
  const io = {
    stdout: out.stream,
    stderr: err.stream,
    env: given,
    cwd: h.tmp.dir,
    signal: new AbortController().signal,
  };
  const code = await cli(args, io);
  return { code, stdout: out.text(), stderr: err.text() };
}

/** The test's store, for what a command left in it. */
async function withStore<T>(read: (store: Store, service: string) => Promise<T>): Promise<T> {
  const store = await openStore({ stateDir: h.tmp.path('state'), databaseUrl: h.store.env.PAYER_ONBOARD_DATABASE_URL });
  try {
    return await read(store, journalName(h.sandbox.url, API_KEY));
  } finally {
    await store.close();
  }
}

/** Three good rows (one a business), one with a bad e-mail, and a repeat of the first. */
const PAYERS = [
  `${PAYER_HEADER},companyName`,
  `${payerRow('d-1')},`,
  `${payerRow('d-2', { beneficiaryType: 'business', firstName: 'Grace', lastName: 'Hopper' })},Acme Ltd`,
  `${payerRow('d-3', { firstName: 'Alan', lastName: 'Turing' })},`,
  `${payerRow('d-4', { email: 'alan.turing at bletchley' })},`,
  `${payerRow('d-1')},`,
].join('\n');

describe('directory import', () => {
  it("fills the directory from a file's valid rows, says each row it could not use without its values, sends nothing", async () => {
    h.tmp.write('payers.csv', `${PAYERS}\n`);
    const first = await payerOnboard(['directory', 'import', 'payers.csv', ...where()]);
    expect(first.code).toBe(1);
    expect(first.stdout).toBe('');
    const lines = first.stderr.split('\n');
    expect(lines.slice(0, 2)).toEqual([
      'payers.csv:5: email: must be a valid e-mail address, got "aaaa.aaaaaa aa aaaaaaaaa" (masked as personal data: digits shown as 9, letters as a)',
      'payers.csv:6: clientUserId: "d-1" appears again: the same payer is already on line 2 (another payer needs its own clientUserId; a repeat can be deleted)',
    ]);
    expect(lines[2]).toMatch(
      /^directory import: 3 payers' entries written into the store \S+ \(127\.0\.0\.1:\d+ with this API key\): 3 new, 0 changed, 0 the same; 2 rows not used \(above\): fix and import again$/,
    );
    for (const personal of ['Lovelace', 'Turing', 'bletchley', '123-45-6789', '1985-12-10', '+12175550100', 'Acme'])
      expect(first.stderr).not.toContain(personal);
    expect(h.sandbox.stats().requests).toBe(0);
    const entries = await withStore((store, service) => store.directory(service).entries(['d-1', 'd-2', 'd-3', 'd-4']));
    expect([...entries.keys()].sort()).toEqual(['d-1', 'd-2', 'd-3']);
    expect(entries.get('d-2')).toMatchObject({ firstName: 'Grace', lastName: 'Hopper', companyName: 'Acme Ltd' });

    // The same payers as JSON lines, one with a new address and all valid: counted as they compare, exit 0.
    const jsonl = ['d-1', 'd-2'].map((id) =>
      JSON.stringify({
        ...Object.fromEntries(PAYER_HEADER.split(',').map((c, i) => [c, payerRow(id).split(',')[i]])),
        ...(id === 'd-2' ? { email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper' } : {}),
        beneficiaryType: 'individual',
      }),
    );
    h.tmp.write('payers.jsonl', `${jsonl.join('\n')}\n`);
    const again = await payerOnboard(['directory', 'import', 'payers.jsonl', ...where()]);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/: 0 new, 1 changed, 1 the same\n$/);
    const changed = await withStore((store, service) => store.directory(service).entries(['d-2']));
    // An individual now: the company the earlier file gave is not this row's.
    expect(changed.get('d-2')?.email).toBe('grace@example.com');
    expect(changed.get('d-2')?.companyName).toBeUndefined();
  });

  it('needs the base URL and key the runs used, never the key as a flag; a file it cannot read is exit 2', async () => {
    h.tmp.write('payers.csv', `${PAYERS}\n`);
    const none = await payerOnboard(['directory', 'import', 'payers.csv'], {});
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      'payer-onboard: --base-url: give the API root the runs used (or set PAYER_API_BASE_URL): the store keeps the payers of each base URL and key apart\n' +
        'no API key found: set PAYER_API_KEY, or put the key the runs used in a file and give --api-key-file FILE (nothing is sent with it)\n',
    );
    const flag = await payerOnboard(['directory', 'import', 'payers.csv', ...where(), '--api-key', 'sk_live_1']);
    expect(flag).toMatchObject({ code: 2, stderr: expect.stringContaining('--api-key: the key is never taken') });
    expect(flag.stderr).not.toContain('sk_live_1');
    const options = await payerOnboard([
      'directory',
      'import',
      'payers.csv',
      ...where(),
      '--date-format',
      'X',
      '--encoding',
      'y',
    ]);
    expect(options).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^payer-onboard: --date-format: .*\n--encoding: "y" is not/),
    });
    const missing = await payerOnboard(['directory', 'import', 'nothing.csv', ...where()]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^payer-onboard: nothing\.csv: /);
  });
});

describe('forget', () => {
  it("erases a payer's entry and links, keeps its mails' steps and signature; an unknown id is exit 1", async () => {
    const run = await h.run({ inputs: [h.tmp.write('payers.csv', payersCsv(['f-1', 'f-2', 'f-3']))] });
    expect(run.summary.exitCode).toBe(0);
    await withStore(async (store, service) => {
      const directory = store.directory(service);
      for (const token of ['one', 'two'])
        await directory.addLink({
          tokenHash: linkTokenHash(token),
          clientUserId: 'f-1',
          createdAt: 'c',
          expiresAt: 'e',
        });
      await directory.putMail({
        clientUserId: 'f-1',
        step: 'invitation',
        state: 'refused',
        reason: '550 no such user',
        at: 'a',
      });
      await directory.sign({ clientUserId: 'f-1', how: 'page', at: 'a' });
      // f-3 also has a row waiting in the store.
      await store
        .waiting(service)
        .replace(
          { id: 'w', name: 'pending.csv', format: 'csv', shape: '{}', addedAt: 'a' },
          [],
          [{ part: 0, payerKey: payerKeyOf('f-3'), clientUserId: 'f-3', original: '[]', completedSteps: '' }],
        );
    });

    const forgot = await payerOnboard(['forget', 'f-1', ...where()]);
    const said = forgot.stderr.split('\n');
    expect(said[0]).toMatch(/^forget: in the store \S+ \(127\.0\.0\.1:\d+ with this API key\)$/);
    expect({ ...forgot, stderr: said.slice(1).join('\n') }).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'f-1: erased its directory entry (names, e-mail, company) and 2 personal links; kept 1 mail record (step, ' +
        'state and time, the reason erased: it keeps that mail from going out again), how and when its agreement was ' +
        "signed (for the record) and the journal's record (its id's hash, digests and statuses: no name or e-mail)\n",
    });
    await withStore(async (store, service) => {
      const directory = store.directory(service);
      expect([...(await directory.entries(['f-1', 'f-2'])).keys()]).toEqual(['f-2']);
      expect(await directory.link(linkTokenHash('one'))).toBeUndefined();
      expect(await directory.mails(['f-1'])).toEqual([
        { clientUserId: 'f-1', step: 'invitation', state: 'refused', at: 'a' },
      ]);
      // The journal's memory of its calls stays: a run of its row sends nothing again.
      expect(await store.journal(service).payer(payerKeyOf('f-1'))).toBeDefined();
    });

    const twice = await payerOnboard(['forget', 'f-1', 'f-3', 'nobody', ...where()]);
    expect(twice.code).toBe(1);
    expect(twice.stderr.split('\n')).toEqual([
      expect.stringMatching(/^forget: in the store /),
      expect.stringMatching(/^f-1: nothing to erase \(no directory entry or link\); kept 1 mail record /),
      // Its row carried its signature: the run recorded it.
      'f-3: erased its directory entry (names, e-mail, company); kept how and when its agreement was signed (for the ' +
        "record) and the journal's record (its id's hash, digests and statuses: no name or e-mail); 1 row of it still " +
        'waits in the store with its cells, until run to the end',
      expect.stringMatching(
        /^nobody: not known to the store \S+ \(127\.0\.0\.1:\d+ with this API key\): nothing to erase$/,
      ),
      '',
    ]);
  });

  it('the bin: an id of a store that does not exist yet is unknown, and no store is made', async () => {
    const child = spawnBin(['forget', 'someone', ...where()], { cwd: h.tmp.dir, env: env() });
    const done = await child.done;
    expect(done.code).toBe(1);
    if (h.store.env.PAYER_ONBOARD_DATABASE_URL !== undefined) {
      expect(done.stderr).toMatch(
        /^forget: in the store postgres:\S+ .*\nsomeone: not known to the store postgres:\S+ \(127\.0\.0\.1:\d+ with this API key\)/,
      );
      return;
    }
    expect(done.stderr).toBe(`someone: not known (no store in ${h.tmp.path('state')} yet): nothing to erase\n`);
    expect(existsSync(h.tmp.path('state'))).toBe(false);
  });
});

describe("serve's inbox names its store", () => {
  it('--inbox DIR: directory import and forget use the store serve keeps there, as link and invite do', async () => {
    if (h.store.env.PAYER_ONBOARD_DATABASE_URL) return; // on PostgreSQL the database names the store, not a folder
    const input = h.tmp.write('p.csv', payersCsv(['i-1']));
    const inbox = ['--base-url', h.sandbox.url, '--inbox', 'payers'];
    expect((await payerOnboard(['directory', 'import', input, ...inbox])).code).toBe(0);
    const store = await openStore({ stateDir: h.tmp.path('payers/.payer-onboard') });
    try {
      const service = journalName(h.sandbox.url, API_KEY);
      expect([...(await store.directory(service).entries(['i-1'])).keys()]).toEqual(['i-1']);
    } finally {
      await store.close();
    }
    expect(existsSync(h.tmp.path('state/payer-onboard.db'))).toBe(false);
    const forgot = await payerOnboard(['forget', 'i-1', ...inbox]);
    expect(forgot.code).toBe(0);
    expect(forgot.stderr).toContain('payers/.payer-onboard');
  });
});
