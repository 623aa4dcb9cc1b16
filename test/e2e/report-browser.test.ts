import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { harness } from '../helpers/runHarness.js';
import { mixedPayers, ORPHAN_BANK_ROWS } from '../helpers/reportFixtures.js';

// report.html opened in a real headless browser (Debian's chromium), driven over the DevTools protocol by
// scripts/check-report.mjs. Locally it is skipped, saying why, when chromium is not installed; .ci/run
// installs it and sets PAYER_ONBOARD_REQUIRE_BROWSER=1, so in CI a missing browser fails instead.
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const CHECK = join(import.meta.dirname, '..', '..', 'scripts', 'check-report.mjs');
const have = existsSync(CHROMIUM);
const required = process.env.PAYER_ONBOARD_REQUIRE_BROWSER === '1';
const title =
  have || required
    ? 'report.html in headless chromium'
    : `report.html in headless chromium: SKIPPED, ${CHROMIUM} is not installed (apt-get install chromium; .ci/run installs it)`;

if (!have && !required) console.warn(title);

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe.skipIf(!have && !required)(title, () => {
  it('renders what to do next, counts, charts and a working filter, with no console error and no network request', async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is required here (PAYER_ONBOARD_REQUIRE_BROWSER=1)`).toBe(true);
    // Some 429s so the requests-per-second chart has more than one colour.
    h = await harness({ fault429: 0.1, seed: 3 });
    const input = h.tmp.write('payers.csv', mixedPayers());
    const bank = h.tmp.write('bank.csv', ORPHAN_BANK_ROWS);
    const { summary, results } = await h.run({ inputs: [input], bankDetails: bank, retries: 10 });
    const shot = h.tmp.path('report.png');

    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--experimental-websocket', CHECK, summary.outputs.report, shot],
      { timeout: 50_000 },
    );
    const page = JSON.parse(stdout) as {
      consoleErrors: string[];
      exceptions: string[];
      logErrors: string[];
      requests: string[];
      dom: {
        counts: Record<string, number>;
        charts: Array<{ label: string; shapes: number; visible: boolean }>;
        tableRows: number;
        tableVisible: boolean;
        firstRow: string[];
        groups: string[];
        rerun: string | null;
      };
      filter: { term: string; shown: number; expected: number; label: number; restored: number };
    };

    expect(page.consoleErrors).toEqual([]);
    expect(page.exceptions).toEqual([]);
    expect(page.logErrors).toEqual([]);
    expect(page.requests).toEqual([]);

    const notOk = results.filter((r) => r.outcome !== 'ok');
    const fromCsv: Record<string, number> = {
      total: results.length,
      ok: 0,
      waiting: 0,
      invalid: 0,
      failed: 0,
      skipped: 0,
    };
    for (const r of results) fromCsv[r.outcome!]!++;
    expect(page.dom.counts).toEqual(fromCsv);
    expect(page.dom.tableRows).toBe(notOk.length);
    expect(page.dom.tableVisible).toBe(true);
    expect(page.dom.firstRow.slice(0, 3)).toEqual([notOk[0]!.source, notOk[0]!.line, notOk[0]!.clientUserId]);
    expect(page.dom.groups).toEqual([
      'email: 2 rows, must be a valid e-mail address',
      'dateOfBirth: 1 row, day-first dates: use --date-format DD/MM/YYYY',
      "payment-details: 1 row, payer not registered (the service does not know this clientUserId): run the payer's own row first, or in the same run",
    ]);
    expect(page.dom.rerun).toContain(`run ${summary.outputs.failed[0]}`);
    // The counts by outcome are the cards: no chart draws them a second time.
    expect(page.dom.charts.map((c) => c.label)).toEqual([expect.stringMatching(/^requests per second/)]);
    for (const chart of page.dom.charts) {
      expect(chart.visible).toBe(true);
      expect(chart.shapes).toBeGreaterThan(0);
    }
    // Filtering by the first row's clientUserId keeps exactly the rows that contain it, then all come back.
    expect(page.filter.shown).toBe(page.filter.expected);
    expect(page.filter.label).toBe(page.filter.shown);
    expect(page.filter.shown).toBeLessThan(notOk.length);
    expect(page.filter.restored).toBe(notOk.length);

    const png = readFileSync(shot);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(statSync(shot).size).toBeGreaterThan(10_000);
  });
});
