import { journalsIn } from '../helpers/storeOnDisk.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInbox } from '../../src/inbox/runInbox.js';
import { runStatus } from '../../src/status/runStatus.js';
import { inboxAt } from '../helpers/inboxFixtures.js';
import { harness, memoryStream, payersCsv } from '../helpers/runHarness.js';

// A key the service refuses: run, status and the inbox each say once where the key came from and what to change,
// and no journal is left behind for a key that never worked.

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

/** The journals of the state dir's store. */
const journals = journalsIn;

/** The call whose answer came first names the step: a payer's create and its read go out together. */
const anyStep = (text: string | undefined) =>
  text?.replace(/API key rejected \((compliance|payment-details|status): /g, 'API key rejected (STEP: ');

const FROM_ENV = (url: string) =>
  `the key came from PAYER_API_KEY: set it to a key ${url} accepts, or put that key in a file and give --api-key-file FILE`;

describe('a rejected API key', () => {
  it('run names PAYER_API_KEY and the fix once, and leaves no journal for the key', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['k-1', 'k-2', 'k-3']));
    const { summary, stderr } = await h.run({ inputs: [input], concurrency: 1 }, { PAYER_API_KEY: 'wrong-key' });
    const message = `stopped: API key rejected (STEP: HTTP 401 Unauthorized): ${FROM_ENV(h.sandbox.url)}`;
    expect(summary.exitCode).toBe(3);
    expect(summary.aborted?.reason).toBe('key-rejected');
    expect(anyStep(summary.aborted?.message)).toBe(message);
    expect(anyStep(stderr)).toContain(`  ABORTED: ${message}\n`);
    expect(stderr.split('PAYER_API_KEY').length - 1).toBe(1);
    expect(stderr).toContain(
      '  not attempted (the run stopped): run the same file again once the key is right; pending rows: ',
    );
    expect(stderr).not.toContain('again later');
    expect(stderr).not.toContain('wrong-key');
    expect(journals(h.tmp.path('state'))).toEqual([]);

    // The right key starts the journal afresh, with no word of a journal of another key.
    const fixed = await h.run({ inputs: [input] });
    expect(fixed.summary.exitCode).toBe(0);
    expect(fixed.stderr).not.toContain('no journal of this API key');
    expect(journals(h.tmp.path('state'))).toHaveLength(1);
  });

  it('run names the --api-key-file it read', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['f-1']));
    const keyFile = h.tmp.write('key.txt', 'wrong-key\n');
    const { summary } = await h.run({ inputs: [input], apiKeyFile: keyFile }, {});
    expect(anyStep(summary.aborted?.message)).toBe(
      `stopped: API key rejected (STEP: HTTP 401 Unauthorized): the key came from --api-key-file ${keyFile}: put a key ${h.sandbox.url} accepts in that file`,
    );
  });

  it('a journal the key found already is kept', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['j-1']));
    await h.run({ inputs: [input] });
    const before = journals(h.tmp.path('state'));
    expect(before).toHaveLength(1);
    h.sandbox.script([{ route: '*', status: 401, times: 5 }]);
    const refused = await h.run({ inputs: [h.tmp.write('more.csv', payersCsv(['j-2']))] });
    expect(refused.summary.aborted?.reason).toBe('key-rejected');
    expect(journals(h.tmp.path('state'))).toEqual(before);
  });

  it('status says it once, as run does: no "stopped: stopped:"', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['s-1', 's-2']));
    const err = memoryStream();
    const summary = await runStatus(
      { inputs: [input], baseUrl: h.sandbox.url, stateDir: h.tmp.path('state'), out: h.tmp.path('status'), rate: 0 },
      { cwd: h.tmp.dir, env: { PAYER_API_KEY: 'wrong-key' }, stderr: err.stream },
    );
    const message = `stopped: API key rejected (status: HTTP 401 Unauthorized): ${FROM_ENV(h.sandbox.url)}`;
    expect(summary.exitCode).toBe(3);
    expect(summary.aborted?.message).toBe(message);
    expect(err.text()).toContain(`\nABORTED: ${message}\n`);
    expect(err.text()).not.toContain('stopped: stopped:');
    expect(err.text().split('PAYER_API_KEY').length - 1).toBe(1);
  });

  it('the inbox says it once: its own line points at the run summary above it', async () => {
    const inbox = inboxAt(h.tmp.path('inbox'));
    inbox.drop('a.csv', payersCsv(['i-1']), 120);
    const err = memoryStream();
    const result = await runInbox(
      { dir: inbox.root, settle: 1, run: { baseUrl: h.sandbox.url, rate: 0 } },
      { cwd: h.tmp.dir, env: { PAYER_API_KEY: 'wrong-key' }, stderr: err.stream },
    );
    expect(result.exitCode).toBe(3);
    expect(err.text().split('PAYER_API_KEY').length - 1).toBe(1);
    expect(err.text()).toContain(
      'inbox: a.csv: exit 3, left in processing/ (the run stopped (key-rejected); the next inbox run resumes it)',
    );
    expect(journals(inbox.path('.payer-onboard'))).toEqual([]);
  });
});
