import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalName } from '../../src/journal/stateDir.js';
import { run, type RunInput } from '../../src/pipeline/run.js';
import { runStatus } from '../../src/status/runStatus.js';
import { API_KEY, harness, memoryStream, payersCsv, readResults } from '../helpers/runHarness.js';

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
const journalIn = (stateDir: string) => join(stateDir, journalName(h.sandbox.url, API_KEY), 'journal.jsonl');

describe("the default state dir is the user's, whatever folder a run starts in", () => {
  it('shares one journal between runs from two folders: the second sends nothing for done rows', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['d-1', 'd-2', 'd-3']));
    const first = await runFrom(h.tmp.path('alice'), { inputs: [input] });
    expect(first.summary.rows.ok).toBe(3);
    expect(existsSync(journalIn(userState()))).toBe(true);
    expect(existsSync(h.tmp.path('alice/.payer-onboard'))).toBe(false);
    const before = h.sandbox.stats().requests;
    const second = await runFrom(h.tmp.path('bob'), { inputs: [input] });
    expect(second.summary.rows.ok).toBe(3);
    expect(h.sandbox.stats().requests - before).toBe(0);
  });

  it('goes by XDG_STATE_HOME where it is set; --state-dir and PAYER_ONBOARD_STATE_DIR still win', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['x-1']));
    await runFrom(h.tmp.path('cwd'), { inputs: [input] }, { XDG_STATE_HOME: h.tmp.path('xdg') });
    expect(existsSync(journalIn(h.tmp.path('xdg/payer-onboard')))).toBe(true);
    await runFrom(h.tmp.path('cwd'), { inputs: [input] }, { PAYER_ONBOARD_STATE_DIR: 'by-env' });
    expect(existsSync(journalIn(h.tmp.path('cwd/by-env')))).toBe(true);
    await runFrom(h.tmp.path('cwd'), { inputs: [input], stateDir: 'by-flag' });
    expect(existsSync(journalIn(h.tmp.path('cwd/by-flag')))).toBe(true);
    // The user's state folder holds only the run locks (all released): no journal went there.
    expect(readdirSync(userState())).toEqual(['locks']);
    expect(readdirSync(join(userState(), 'locks'))).toEqual([]);
  });
});

describe('a journal in the old default place, ./.payer-onboard', () => {
  it('is moved to the new place with one line saying so; a re-run from that folder sends nothing for done rows', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['o-1', 'o-2', 'o-3']));
    const folder = h.tmp.path('team');
    // What the version before made: the journal under the working directory.
    const old = await runFrom(folder, { inputs: [input], stateDir: '.payer-onboard' });
    expect(old.summary.rows.ok).toBe(3);
    const oldJournal = journalIn(join(folder, '.payer-onboard'));
    expect(existsSync(oldJournal)).toBe(true);

    const before = h.sandbox.stats().requests;
    const after = await runFrom(folder, { inputs: [input] });
    expect(after.summary.rows.ok).toBe(3);
    expect(h.sandbox.stats().requests - before).toBe(0);
    const moved = after.stderr.split('\n').filter((line) => line.includes('moved the journal'));
    expect(moved).toEqual([
      `payer-onboard: moved the journal in ${join(folder, '.payer-onboard', journalName(h.sandbox.url, API_KEY))} to ${join(userState(), journalName(h.sandbox.url, API_KEY))}: the state dir is now the same for runs from every folder`,
    ]);
    expect(existsSync(oldJournal)).toBe(false);
    // Nothing else was in it: the old folder is gone too.
    expect(existsSync(join(folder, '.payer-onboard'))).toBe(false);
    expect(existsSync(journalIn(userState()))).toBe(true);
  });

  it('is merged into a journal the new place already has: neither folder loses what it remembers', async () => {
    const a = h.tmp.write('a.csv', payersCsv(['m-1', 'm-2']));
    const b = h.tmp.write('b.csv', payersCsv(['m-3', 'm-4']));
    await runFrom(h.tmp.path('old-folder'), { inputs: [a], stateDir: '.payer-onboard' });
    await runFrom(h.tmp.path('new-folder'), { inputs: [b] });
    const both = h.tmp.write('both.csv', payersCsv(['m-1', 'm-2', 'm-3', 'm-4']));
    const before = h.sandbox.stats().requests;
    const merged = await runFrom(h.tmp.path('old-folder'), { inputs: [both] });
    expect(merged.summary.rows.ok).toBe(4);
    expect(h.sandbox.stats().requests - before).toBe(0);
    expect(merged.stderr).toContain('moved the journal in');
    expect(readdirSync(userState()).filter((name) => name !== 'locks')).toEqual([journalName(h.sandbox.url, API_KEY)]);
  });

  it("leaves other services' journals there for their own runs to move", async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['s-1']));
    const folder = h.tmp.path('team');
    await runFrom(folder, { inputs: [input], stateDir: '.payer-onboard' });
    mkdirSync(join(folder, '.payer-onboard', 'api.example.com-0123456789ab'));
    await runFrom(folder, { inputs: [input] });
    expect(readdirSync(join(folder, '.payer-onboard'))).toEqual(['api.example.com-0123456789ab']);
  });

  it('is left alone by a run with its own --state-dir', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['e-1']));
    const folder = h.tmp.path('team');
    await runFrom(folder, { inputs: [input], stateDir: '.payer-onboard' });
    const explicit = await runFrom(folder, { inputs: [input], stateDir: 'elsewhere' });
    expect(explicit.stderr).not.toContain('moved the journal');
    expect(existsSync(journalIn(join(folder, '.payer-onboard')))).toBe(true);
  });

  it('is read by status where it is, and left there: status writes nothing to the state dir', async () => {
    const input = h.tmp.write('payers.csv', payersCsv(['t-1']));
    const folder = h.tmp.path('team');
    await runFrom(folder, { inputs: [input], stateDir: '.payer-onboard' });
    const status = await runStatus(
      { inputs: [input], baseUrl: h.sandbox.url, rate: 0, out: h.tmp.path('status') },
      { cwd: folder, env: { PAYER_API_KEY: API_KEY, HOME: h.tmp.path('home') }, stderr: memoryStream().stream },
    );
    // The status read carries no links: these come from the journal.
    const [line] = readResults(status.outputs.status);
    expect(line?.kycUrl).toMatch(/^http/);
    expect(existsSync(journalIn(join(folder, '.payer-onboard')))).toBe(true);
    expect(readdirSync(userState())).toEqual(['locks']);
  });
});
