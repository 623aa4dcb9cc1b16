import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalName } from '../../src/journal/stateDir.js';
import { run, type RunInput } from '../../src/pipeline/run.js';
import { API_KEY, harness, memoryStream, payersCsv } from '../helpers/runHarness.js';
import { journalsIn } from '../helpers/storeOnDisk.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

/**
 * A run from `cwd` as a user would make it: no --state-dir, so the default. HOME is this test's own; `env` adds to
 * (or takes the place of) it.
 */
async function runFrom(cwd: string, input: Partial<RunInput> & { inputs: string[] }, env: NodeJS.ProcessEnv = {}) {
  mkdirSync(cwd, { recursive: true });
  const err = memoryStream();
  const summary = await run(
    { baseUrl: h.sandbox.url, rate: 0, out: join(cwd, `out-${Math.random().toString(36).slice(2, 8)}`), ...input },
    { cwd, env: { PAYER_API_KEY: API_KEY, HOME: h.tmp.path('home'), ...env }, stderr: err.stream },
  );
  return { summary, stderr: err.text() };
}

const userState = () => h.tmp.path('home/.local/state/payer-onboard');
/** The state dir's store holds this sandbox and key's journal. */
const hasJournal = (stateDir: string) => journalsIn(stateDir).includes(journalName(h.sandbox.url, API_KEY));

describe("the default state dir is the user's, whatever folder a run starts in", () => {
  it('shares one journal between runs from two folders: the second sends nothing for done rows', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['d-1', 'd-2', 'd-3']));
    const first = await runFrom(h.tmp.path('alice'), { inputs: [input] });
    expect(first.summary.rows.ok).toBe(3);
    expect(hasJournal(userState())).toBe(true);
    expect(existsSync(h.tmp.path('alice/.payer-onboard'))).toBe(false);
    const before = h.sandbox.stats().requests;
    const second = await runFrom(h.tmp.path('bob'), { inputs: [input] });
    expect(second.summary.rows.ok).toBe(3);
    expect(h.sandbox.stats().requests - before).toBe(0);
  });

  it('goes by XDG_STATE_HOME where it is set; --state-dir and PAYER_ONBOARD_STATE_DIR still win', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['x-1']));
    await runFrom(h.tmp.path('cwd'), { inputs: [input] }, { XDG_STATE_HOME: h.tmp.path('xdg') });
    expect(hasJournal(h.tmp.path('xdg/payer-onboard'))).toBe(true);
    await runFrom(h.tmp.path('cwd'), { inputs: [input] }, { PAYER_ONBOARD_STATE_DIR: 'by-env' });
    expect(hasJournal(h.tmp.path('cwd/by-env'))).toBe(true);
    await runFrom(h.tmp.path('cwd'), { inputs: [input], stateDir: 'by-flag' });
    expect(hasJournal(h.tmp.path('cwd/by-flag'))).toBe(true);
    // Nothing went to the user's state folder: no journal, and no lock (a run's lock is no file).
    expect(existsSync(userState())).toBe(false);
  });
});

describe('a state dir of its own in ./.payer-onboard (the old default place)', () => {
  it("is where that state dir's runs keep their journal; a run with another state dir starts its own", async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['e-1']));
    const folder = h.tmp.path('team');
    await runFrom(folder, { inputs: [input], stateDir: '.payer-onboard' });
    expect(hasJournal(join(folder, '.payer-onboard'))).toBe(true);
    const explicit = await runFrom(folder, { inputs: [input], stateDir: 'elsewhere' });
    expect(explicit.stderr).not.toContain('imported the journal');
    expect(hasJournal(join(folder, 'elsewhere'))).toBe(true);
    // What the old place's journal knew is read back from the service: nothing created twice.
    expect(h.sandbox.stats()).toMatchObject({
      payersCreated: 1,
      duplicatePaymentDetails: 0,
      paymentDetailsCreated: 1,
    });
  });
});

describe('a state dir the run cannot use', () => {
  it('is refused before anything is sent, exit 2, in one sentence naming it', async () => {
    const file = h.tmp.write('not-a-folder', '');
    const input = h.tmp.write('payers.csv', payersCsv(['u-1']));
    const error = await runFrom(h.tmp.path('cwd'), { inputs: [input], stateDir: join(file, 'state') }).catch(
      (e: unknown) => e,
    );
    expect((error as { exitCode?: number }).exitCode).toBe(2);
    expect((error as Error).message).toBe(
      `the state dir ${join(file, 'state')} cannot be written (ENOTDIR): give a folder this user can write with --state-dir, or fix its permissions`,
    );
    expect(h.sandbox.stats().requests).toBe(0);
  });
});
