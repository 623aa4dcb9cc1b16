import { describe, expect, it } from 'vitest';
import { CatchUp, RETRY_WINDOW_MS } from '../../src/serve/CatchUp.js';
import type { JournalWrite } from '../../src/store/Store.js';

// When serve notes it is alive, and which gaps it catches up: longer than the service's retries only; a later gap
// starts the catch-up again from its own start; one a restart cut short goes on.

function settings(kept: Record<string, string> = {}) {
  const values = new Map<string, string>(Object.entries(kept));
  return {
    values,
    setting: async (name: string) => values.get(name),
    write: async (batch: readonly JournalWrite[]) => {
      for (const item of batch)
        if ('setting' in item) {
          if (item.value === undefined) values.delete(item.setting);
          else values.set(item.setting, item.value);
        }
    },
  };
}

const T0 = Date.parse('2026-12-02T08:00:00Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

describe('catch-up after a gap in taking webhooks', () => {
  it('a start soon after the last note needs none; a start long after catches up from that note', async () => {
    const said: string[] = [];
    let now = T0 + RETRY_WINDOW_MS - 1;
    const soon = new CatchUp(
      settings({ 'serve-alive-at': at(0) }),
      (l) => said.push(l),
      RETRY_WINDOW_MS,
      () => now,
    );
    await soon.start();
    expect(soon.progress).toBeUndefined();
    expect(said).toEqual([]);

    now = T0 + 60_000;
    const kept = settings({ 'serve-alive-at': at(0) });
    const late = new CatchUp(
      kept,
      (l) => said.push(l),
      RETRY_WINDOW_MS,
      () => now,
    );
    await late.start();
    expect(late.progress).toMatchObject({ since: at(0), rows: 0, done: 0 });
    expect(late.pending).toBe(true);
    expect(said[0]).toMatch(/^serve: no webhooks could be taken for 60 s \(since 2026-12-02T08:00:00.000Z\)/);
    // Kept, for a restart to go on with it.
    await expect.poll(() => kept.values.get('serve-catch-up-since')).toBe(at(0));
  });

  it('notes only while listening: a start that never listened leaves the last note as it was', async () => {
    const kept = settings({ 'serve-alive-at': at(0) });
    let now = T0 + 1_000;
    const failed = new CatchUp(
      kept,
      () => {},
      RETRY_WINDOW_MS,
      () => now,
    );
    await failed.start();
    await failed.stop();
    expect(kept.values.get('serve-alive-at')).toBe(at(0));

    const serving = new CatchUp(
      kept,
      () => {},
      RETRY_WINDOW_MS,
      () => now,
    );
    await serving.start();
    await serving.listening();
    expect(kept.values.get('serve-alive-at')).toBe(at(1_000));
    now = T0 + 5_000;
    await serving.stop();
    expect(kept.values.get('serve-alive-at')).toBe(at(5_000));
    now = T0 + 9_000;
    await serving.stop();
    expect(kept.values.get('serve-alive-at')).toBe(at(5_000));
  });

  it('a later gap starts it again from its own start; slices advance it to its end; a restart goes on with one not ended', async () => {
    const kept = settings();
    const now = T0;
    const catchUp = new CatchUp(
      kept,
      () => {},
      RETRY_WINDOW_MS,
      () => now,
    );
    catchUp.gap(T0 + 50_000, T0 + 200_000);
    catchUp.advance(100, { fileId: 'f', seq: 100 });
    catchUp.gap(T0 + 300_000, T0 + 400_000);
    expect(catchUp.progress?.since).toBe(at(300_000));
    expect(catchUp.after).toEqual({ fileId: '', seq: 0 });
    catchUp.gap(T0 + 400_000, T0 + 400_000 + RETRY_WINDOW_MS);
    expect(catchUp.progress?.since).toBe(at(300_000));

    const said: string[] = [];
    const restarted = new CatchUp(
      kept,
      (l) => said.push(l),
      RETRY_WINDOW_MS,
      () => now,
    );
    await restarted.start();
    expect(restarted.progress?.since).toBe(at(300_000));
    expect(said).toEqual([
      `serve: the catch-up of the gap since ${at(300_000)} was cut short by a restart: it goes on`,
    ]);

    catchUp.counted(250);
    catchUp.advance(200, { fileId: 'f', seq: 200 });
    expect(catchUp.pending).toBe(true);
    catchUp.advance(50, undefined);
    expect(catchUp.pending).toBe(false);
    expect(catchUp.progress).toMatchObject({ rows: 250, done: 250, finishedAt: expect.any(String) });
    await expect.poll(() => kept.values.has('serve-catch-up-since')).toBe(false);
  });
});
