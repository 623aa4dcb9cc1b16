import { describe, expect, it } from 'vitest';
import { CatchUp, RETRY_WINDOW_MS } from '../../src/serve/CatchUp.js';
import type { JournalWrite } from '../../src/store/Store.js';

// When serve notes it is alive, and which gaps it catches up: longer than the service's retries only, the earliest
// start winning while one is under way.

function settings(noted?: string) {
  const values = new Map<string, string>(noted === undefined ? [] : [['serve-alive-at', noted]]);
  return {
    values,
    setting: async (name: string) => values.get(name),
    write: async (batch: readonly JournalWrite[]) => {
      for (const item of batch) if ('setting' in item && item.value !== undefined) values.set(item.setting, item.value);
    },
  };
}

const T0 = Date.parse('2026-12-02T08:00:00Z');

describe('catch-up after a gap in taking webhooks', () => {
  it('a start soon after the last note needs none; a start long after catches up from that note', async () => {
    const said: string[] = [];
    let now = T0 + RETRY_WINDOW_MS - 1;
    const soon = new CatchUp(
      settings(new Date(T0).toISOString()),
      (l) => said.push(l),
      RETRY_WINDOW_MS,
      () => now,
    );
    await soon.start();
    await soon.stop();
    expect(soon.progress).toBeUndefined();
    expect(said).toEqual([]);

    now = T0 + 60_000;
    const late = new CatchUp(
      settings(new Date(T0).toISOString()),
      (l) => said.push(l),
      RETRY_WINDOW_MS,
      () => now,
    );
    await late.start();
    await late.stop();
    expect(late.progress).toMatchObject({ since: '2026-12-02T08:00:00.000Z', rows: 0, done: 0 });
    expect(late.pending).toBe(true);
    expect(said[0]).toMatch(/^serve: no webhooks could be taken for 60 s \(since 2026-12-02T08:00:00.000Z\)/);
  });

  it('notes when it stops; a gap found while one is caught up keeps the earlier start; slices advance it to its end', async () => {
    const kept = settings();
    let now = T0;
    const catchUp = new CatchUp(
      kept,
      () => {},
      RETRY_WINDOW_MS,
      () => now,
    );
    await catchUp.start();
    now = T0 + 5_000;
    await catchUp.stop();
    expect(kept.values.get('serve-alive-at')).toBe('2026-12-02T08:00:05.000Z');

    catchUp.gap(T0 + 100_000, T0 + 200_000);
    catchUp.gap(T0 + 150_000, T0 + 300_000);
    expect(catchUp.progress?.since).toBe(new Date(T0 + 100_000).toISOString());
    catchUp.gap(T0 + 50_000, T0 + 300_000);
    expect(catchUp.progress?.since).toBe(new Date(T0 + 50_000).toISOString());
    catchUp.counted(700);
    catchUp.advance(500, { fileId: 'f', seq: 500 });
    expect(catchUp.after).toEqual({ fileId: 'f', seq: 500 });
    expect(catchUp.pending).toBe(true);
    catchUp.advance(200, undefined);
    expect(catchUp.pending).toBe(false);
    expect(catchUp.progress).toMatchObject({ rows: 700, done: 700, finishedAt: expect.any(String) });
  });
});
