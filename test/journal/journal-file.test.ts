import { spawnSync } from 'node:child_process';
import { appendFileSync, closeSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/Journal.js';
import { tempDir } from '../helpers/tempDir.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

const key = (n: number) => `po-${n.toString(16).padStart(8, '0').repeat(8)}`;
const answer = (n: number) => ({ userId: `u-${n}`, kycUrl: `https://kyc.example/${n}?ü=${'x'.repeat(n % 50)}` });
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);

describe('Journal file', () => {
  it('takes back a call that certainly changed nothing, but never a done one; and so after reopening', async () => {
    const path = tmp.path('journal.jsonl');
    const { journal } = await Journal.open(path);
    const place = journal.sent(key(1));
    journal.notDone(key(1), place);
    journal.sent(key(2));
    journal.done(key(2), 201, { id: 'pd-2' });
    journal.notDone(key(2));
    journal.sent(key(3));
    expect(journal.get(key(1))).toBeUndefined();
    expect(journal.get(key(2))).toEqual({ state: 'done', status: 201, answer: { id: 'pd-2' } });
    expect(journal.get(key(3))).toEqual({ state: 'sent' });
    journal.close();
    const reopened = await Journal.open(path);
    expect(reopened.journal.get(key(1))).toBeUndefined();
    expect(reopened.journal.get(key(2))).toMatchObject({ state: 'done' });
    // Sent again after it was taken back: in doubt again.
    reopened.journal.sent(key(1));
    expect(reopened.journal.get(key(1))).toEqual({ state: 'sent' });
    reopened.journal.close();
  });

  it('says whether the run before closed it: after a crash its last lines may be lost', async () => {
    const path = tmp.path('journal.jsonl');
    const first = await Journal.open(path);
    expect(first.journal.closedCleanly).toBe(false);
    first.journal.sent(key(1));
    first.journal.close();
    const second = await Journal.open(path);
    expect(second.journal.closedCleanly).toBe(true);
    expect(second.journal.get(key(1))).toEqual({ state: 'sent' });
    // Killed before its close: what it wrote is there, but nothing says all of it is.
    second.journal.sent(key(2));
    second.journal.flush();
    const afterCrash = await Journal.open(path);
    expect(afterCrash.journal.closedCleanly).toBe(false);
    expect(afterCrash.journal.get(key(2))).toEqual({ state: 'sent' });
    afterCrash.journal.close();
    second.journal.close();
  });

  it('reads answers back from the file, in the same run and after reopening', async () => {
    const path = tmp.path('journal.jsonl');
    const { journal } = await Journal.open(path);
    journal.sent(key(1));
    journal.done(key(1), 200, answer(1));
    journal.sent(key(2));
    journal.sent(key(3));
    journal.done(key(3), 409, {});
    expect(journal.get(key(1))).toEqual({ state: 'done', status: 200, answer: answer(1) });
    expect(journal.get(key(2))).toEqual({ state: 'sent' });
    expect(journal.get(key(3))).toEqual({ state: 'done', status: 409, answer: {} });
    expect(journal.get(key(4))).toBeUndefined();
    journal.close();

    const reopened = await Journal.open(path);
    expect(reopened.load).toMatchObject({ entries: 3, lines: 5, corrupt: 0 });
    expect(reopened.journal.get(key(1))).toEqual({ state: 'done', status: 200, answer: answer(1) });
    expect(reopened.journal.get(key(2))).toEqual({ state: 'sent' });
    expect(reopened.journal.get(key(3))).toEqual({ state: 'done', status: 409, answer: {} });
    // A done call is never demoted by a later `sent` (a re-run does not send it, but an old line may say so).
    reopened.journal.sent(key(1));
    expect(reopened.journal.get(key(1))).toMatchObject({ state: 'done' });
    reopened.journal.close();
  });

  it('compacts a mostly superseded journal to one line per call, every answer still read back', async () => {
    const path = tmp.path('journal.jsonl');
    const { journal } = await Journal.open(path);
    for (let n = 0; n < 800; n++) {
      journal.sent(key(n));
      // In doubt twice (two crashed runs), or done: two lines a call, so at least half are superseded.
      if (n % 4 !== 0) journal.done(key(n), 201, answer(n));
      else journal.sent(key(n));
    }
    journal.close();
    // A later line for a done call, as an old run could have left: superseded, never kept.
    appendFileSync(path, `${JSON.stringify({ k: key(1).slice(3, 35), s: 'sent' })}\n`);
    // The calls' lines, the mark the close left, and the old line after it.
    const before = lines(path).length;
    expect(before).toBe(1600 + 1 + 1);

    const { journal: compacted, load } = await Journal.open(path);
    expect(load).toMatchObject({ entries: 800, lines: before - 1, corrupt: 0, closedCleanly: false });
    const after = lines(path);
    expect(after).toHaveLength(800);
    expect(after.filter((l) => l.includes('"s":"sent"'))).toHaveLength(200);
    for (let n = 0; n < 800; n++) {
      expect(compacted.get(key(n))).toEqual(
        n % 4 === 0 ? { state: 'sent' } : { state: 'done', status: 201, answer: answer(n) },
      );
    }
    // New lines go after the compacted ones and are found too.
    compacted.done(key(0), 200, answer(0));
    expect(compacted.get(key(0))).toEqual({ state: 'done', status: 200, answer: answer(0) });
    compacted.close();
    const last = (await Journal.open(path)).journal;
    expect(last.get(key(0))).toEqual({ state: 'done', status: 200, answer: answer(0) });
    last.close();
  });

  it('skips a half-written last line and a line with no usable key, and appends on a line of its own', async () => {
    const path = tmp.path('journal.jsonl');
    const { journal } = await Journal.open(path);
    journal.done(key(7), 200, answer(7));
    journal.close();
    appendFileSync(path, `${JSON.stringify({ k: 'not-a-key', s: 'sent' })}\n{"k":"po-0123","s":"do`);

    const { journal: again, load } = await Journal.open(path);
    expect(load).toMatchObject({ entries: 1, lines: 3, corrupt: 2 });
    again.done(key(8), 201, answer(8));
    expect(again.get(key(7))).toEqual({ state: 'done', status: 200, answer: answer(7) });
    expect(again.get(key(8))).toEqual({ state: 'done', status: 201, answer: answer(8) });
    again.close();
    // The last line is the mark of the close; the call's is before it.
    expect(lines(path).at(-2)).toContain('"c":201');
    const last = (await Journal.open(path)).journal;
    expect(last.get(key(8))).toEqual({ state: 'done', status: 201, answer: answer(8) });
    last.close();
  });

  it('tells apart calls whose keys share the first 32 bits the index hashes by', async () => {
    const path = tmp.path('journal.jsonl');
    const { journal } = await Journal.open(path);
    const shared = (tail: string) => `po-deadbeef${tail.padStart(24, '0')}${'0'.repeat(32)}`;
    journal.done(shared('1'), 200, { userId: 'one' });
    journal.done(shared('2'), 200, { userId: 'two' });
    journal.sent(shared('3'));
    expect(journal.get(shared('1'))).toEqual({ state: 'done', status: 200, answer: { userId: 'one' } });
    expect(journal.get(shared('2'))).toEqual({ state: 'done', status: 200, answer: { userId: 'two' } });
    expect(journal.get(shared('3'))).toEqual({ state: 'sent' });
    expect(journal.get(shared('4'))).toBeUndefined();
    journal.close();
    const { journal: again } = await Journal.open(path);
    expect(again.get(shared('2'))).toEqual({ state: 'done', status: 200, answer: { userId: 'two' } });
    expect(again.get(shared('4'))).toBeUndefined();
    again.close();
  });

  it('writes the lines still waiting when the process exits without closing it', async () => {
    const path = tmp.path('journal.jsonl');
    const journalModule = fileURLToPath(new URL('../../dist/journal/Journal.js', import.meta.url));
    const script = `
      const { Journal } = await import(${JSON.stringify(pathToFileURL(journalModule).href)});
      const { journal } = await Journal.open(${JSON.stringify(path)});
      journal.sent(${JSON.stringify(key(1))});
      journal.done(${JSON.stringify(key(1))}, 201, { id: 'pd-1' });
      process.exit(3);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(3);
    expect(lines(path)).toHaveLength(2);
    const { journal } = await Journal.open(path);
    expect(journal.get(key(1))).toEqual({ state: 'done', status: 201, answer: { id: 'pd-1' } });
    journal.close();
  });

  it('keeps what a line said when writing it fails as it is read back, and sends no done call again', async () => {
    const path = tmp.path('journal.jsonl');
    const { journal } = await Journal.open(path);
    const failures: Error[] = [];
    journal.onFailure = (error) => failures.push(error);
    journal.sent(key(1));
    journal.done(key(1), 201, { id: 'pd-1' });
    // The file goes away under the journal (a disk pulled): the waiting `done` line cannot be written.
    closeSync((journal as unknown as { fd: number }).fd);
    expect(journal.get(key(1))).toEqual({ state: 'done', status: 201, answer: { id: 'pd-1' } });
    expect(failures).toHaveLength(1);
    expect(journal.sent(key(1))).toBeUndefined();
    expect(journal.get(key(1))).toMatchObject({ state: 'done' });
    (journal as unknown as { fd: number | undefined }).fd = undefined;
    journal.close();
  });
});
