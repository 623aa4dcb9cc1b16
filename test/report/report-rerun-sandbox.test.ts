import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/pipeline/run.js';
import { API_KEY, harness, memoryStream, payersCsv } from '../helpers/runHarness.js';

// A run against a sandbox that its caller started and stops (the demo's) is run again in a sandbox of its own: the
// address of the one it ran against is gone by the time anyone reads the report.

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const rerunLine = (html: string) =>
  (/<pre class="cmd" data-rerun><code>(.*?)<\/code><\/pre>/s.exec(html)?.[1] ?? '').replace(/&#39;/g, "'");

describe("the report's command to run the failed rows again", () => {
  it('is `--sandbox` for a run against a sandbox that dies with its caller, never its port', async () => {
    h = await harness();
    const input = h.tmp.write('payers.csv', payersCsv(['d-1', 'd-2'], { 'd-2': { email: 'nope' } }));
    const summary = await run(
      {
        inputs: [input],
        baseUrl: h.sandbox.url,
        stateDir: h.tmp.path('state'),
        rate: 0,
        out: h.tmp.path('out'),
      },
      { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY }, stderr: memoryStream().stream, sandbox: true },
    );
    expect(summary.rows).toMatchObject({ ok: 1, invalid: 1 });
    expect(summary.sandbox).toBe(true);
    expect(summary.baseUrl).toBeUndefined();
    const html = readFileSync(summary.outputs.report, 'utf8');
    // No --state-dir either: the journal of a sandbox that is gone means nothing to a new one.
    expect(rerunLine(html)).toBe(`npx payer-onboard run ${summary.outputs.failed[0]} --sandbox --rate 0`);
    expect(html).not.toContain(h.sandbox.url);
    expect(html).not.toContain('--base-url');
  });
});
