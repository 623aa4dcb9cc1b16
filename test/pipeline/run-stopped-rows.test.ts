import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, payersCsv } from '../helpers/runHarness.js';
import { waitFor } from '../helpers/waitFor.js';

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ids = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(i + 1).padStart(3, '0')}`);

function logLines(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('run: the rows a stop leaves unfinished', () => {
  it('aborted mid-way, with calls waiting out a retry: every row not ok is skipped, none failed', async () => {
    // A third of the answers are 500s: at any moment some calls are in their backoff, to be cut off by the abort.
    h = await harness({ latencyMs: 40, fault500: 0.3, seed: 11 });
    const abort = new AbortController();
    const running = h.run(
      { inputs: [h.tmp.write('payers.csv', payersCsv(ids(60, 's')))], concurrency: 6, retries: 10 },
      undefined,
      abort.signal,
    );
    await waitFor(() => h!.sandbox.stats().payersCreated >= 10, 'the run to get going');
    abort.abort();
    const { summary, results } = await running;

    expect(summary.exitCode).toBe(3);
    expect(summary.aborted?.reason).toBe('interrupted');
    expect(summary.requests.retries).toBeGreaterThan(0);
    const outcomes = new Set(results.map((r) => r.outcome));
    expect([...outcomes].sort()).toEqual(['ok', 'skipped']);
    // Nothing to fix: the pending file holds every row not ok, and there is no failed file.
    expect(summary.outputs.failed).toEqual([]);
    expect(summary.rows).toMatchObject({ failed: 0, skipped: results.filter((r) => r.outcome === 'skipped').length });
    for (const row of results.filter((r) => r.outcome === 'skipped')) expect(row.error).toMatch(/not (sent|attempted)/);
  });

  it('skipped rows after a stop share one log line: how many, the first and the last', async () => {
    h = await harness({ latencyMs: 40 });
    const abort = new AbortController();
    const running = h.run(
      { inputs: [h.tmp.write('payers.csv', payersCsv(ids(40, 'l')))], concurrency: 2 },
      undefined,
      abort.signal,
    );
    await waitFor(() => h!.sandbox.stats().payersCreated >= 3, 'the run to get going');
    abort.abort();
    const { summary, results } = await running;

    const skipped = results.flatMap((r, i) => (r.outcome === 'skipped' ? [i + 2] : []));
    expect(skipped.length).toBeGreaterThan(20);
    const lines = logLines(summary.outputs.log);
    // No line per skipped row at the default level...
    expect(lines.filter((l) => l.outcome === 'skipped')).toEqual([]);
    // ...but one for them all.
    const summaries = lines.filter((l) => l.msg === 'rows skipped: the run stopped before they were done');
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({
      level: 30,
      rows: skipped.length,
      first: `payers.csv:${skipped[0]}`,
      last: `payers.csv:${skipped.at(-1)}`,
      why: 'stopped: run interrupted',
    });
  });
});
