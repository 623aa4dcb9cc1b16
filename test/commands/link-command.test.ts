import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../src/cli.js';
import { payerKeyOf } from '../../src/journal/RowJournal.js';
import { journalName } from '../../src/journal/stateDir.js';
import { linkTokenHash } from '../../src/store/SqlDirectory.js';
import { SqliteStore } from '../../src/store/SqliteStore.js';
import { memoryStream } from '../helpers/runHarness.js';
import { tempDir } from '../helpers/tempDir.js';

// `payer-onboard link new|revoke ID...`: a person hands a payer a new link to their page, or ends theirs, from the
// store serve keeps them in (its state dir, its service and key).

const BASE_URL = 'https://api.example.com';
const KEY = 'link-test-key';
const env = { PAYER_API_KEY: KEY };

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

async function payerOnboard(args: string[]) {
  const out = memoryStream();
  const err = memoryStream();
  const io = { stdout: out.stream, stderr: err.stream, env, cwd: tmp.dir, signal: new AbortController().signal };
  const code = await cli(args, io);
  return { code, stdout: out.text(), stderr: err.text() };
}

/** serve's store in `stateDir`, with the journal of one registered payer. */
async function storeWith(stateDir: string, clientUserId: string) {
  const store = SqliteStore.open(stateDir);
  const record = { agreementDone: false, accountIds: [], accountsKnown: false, userId: 'user-1' };
  await store.journal(journalName(BASE_URL, KEY)).write([{ payer: payerKeyOf(clientUserId), record }]);
  return store;
}

describe('payer-onboard link', () => {
  it('new prints a link per payer known, one a line; revoke ends them; an unknown id is said and exits 1', async () => {
    const store = await storeWith(join(tmp.path('inbox'), '.payer-onboard'), 'p-1');
    const directory = store.directory(journalName(BASE_URL, KEY));
    const where = ['--inbox', 'inbox', '--base-url', BASE_URL];
    const made = await payerOnboard([
      'link',
      'new',
      'p-1',
      'p-2',
      ...where,
      '--public-url',
      'https://payers.example.com',
    ]);
    expect(made.code).toBe(1);
    const lines = made.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^https:\/\/payers\.example\.com\/p\/[\w-]{43}$/);
    expect(made.stderr).toContain('link: p-2: no payer of this id in the store');
    expect(made.stderr).toMatch(/link: p-1: a new link, valid until \d{4}-\d\d-\d\d/);
    expect(made.stderr).not.toContain(lines[0]!.split('/p/')[1]);
    const hash = linkTokenHash(lines[0]!.split('/p/')[1]!);
    expect(await directory.link(hash)).toMatchObject({ clientUserId: 'p-1' });

    const revoked = await payerOnboard(['link', 'revoke', 'p-1', ...where]);
    expect(revoked).toMatchObject({ code: 0, stdout: '', stderr: 'link: p-1: 1 link revoked\n' });
    expect((await directory.link(hash))?.revokedAt).toBeDefined();
    // Both in the audit trail, as the OS user and host, the token in neither.
    const trail = await store.controls(journalName(BASE_URL, KEY)).auditLines({ subject: 'p-1' }, 0, 10);
    expect(trail.map((line) => [line.who, line.action]).reverse()).toEqual([
      [expect.stringMatching(/^os:.+@.+$/), 'new link'],
      [expect.stringMatching(/^os:.+@.+$/), 'revoke'],
    ]);
    expect(JSON.stringify(trail)).not.toContain(lines[0]!.split('/p/')[1]);
    store.close();
  });

  it('refuses to make links without a public address, or to one that would carry them in the clear', async () => {
    const store = await storeWith(tmp.path('state'), 'p-1');
    const where = ['--state-dir', 'state', '--base-url', BASE_URL];
    expect(await payerOnboard(['link', 'new', 'p-1', ...where])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('link new: --public-url URL is required'),
    });
    const clear = await payerOnboard(['link', 'new', 'p-1', ...where, '--public-url', 'http://payers.example.com']);
    expect(clear.code).toBe(2);
    expect(clear.stderr).toContain("--public-url: http://payers.example.com is not serve's https:// address");
    const nowhere = await payerOnboard(['link', 'revoke', 'p-1', '--state-dir', 'elsewhere', '--base-url', BASE_URL]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toContain('link: no store in');
    store.close();
  });
});
