import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runStatus } from '../../src/status/runStatus.js';
import { focusRings, pageWidth, seriousViolations } from '../helpers/a11y.js';
import { browserSuite, shot, useBrowser } from '../helpers/browser.js';
import { mixedPayers, ORPHAN_BANK_ROWS } from '../helpers/reportFixtures.js';
import { API_KEY, harness, memoryStream, payersCsv } from '../helpers/runHarness.js';

// report.html and the status report, as a finance person opens them on a desk and on a phone: axe-core's WCAG 2.2 AA
// rules find nothing serious, the page has its main landmark, every control shows a focus ring that stands out from the
// page, and at a phone's width only a table scrolls sideways, inside its own box.
const suite = browserSuite('the reports, for accessibility');
const browser = useBrowser(suite.have);

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A run with every part of report.html drawn (rows to fix, links to send, waiting rows, a chart), then `status`. */
async function reports(): Promise<{ run: string; status: string }> {
  h = await harness({ kycAfter: undefined, fault429: 0.1, seed: 3 });
  const input = h.tmp.write('payers.csv', mixedPayers());
  const bank = h.tmp.write('bank.csv', ORPHAN_BANK_ROWS);
  const { summary } = await h.run({ inputs: [input], bankDetails: bank, retries: 10 });
  h.sandbox.setKyc('r-1', 'approved');
  h.sandbox.setKyc('r-2', 'rejected');
  const others = h.tmp.write('others.csv', payersCsv(['s-1'], { 's-1': { agreementCompleted: '' } }));
  await h.run({ inputs: [others] });
  const status = await runStatus(
    { inputs: [input, others], baseUrl: h.sandbox.url, stateDir: h.tmp.path('state'), rate: 0, out: h.tmp.path('st') },
    { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY }, stderr: memoryStream().stream },
  );
  return { run: summary.outputs.report, status: status.outputs.report };
}

describe.skipIf(suite.skip)(suite.title, () => {
  it('report.html and the status report pass WCAG 2.2 AA at 1280 and 375 px, in a main landmark, with focus rings', async () => {
    const pages = await reports();
    for (const [name, path] of Object.entries(pages)) {
      for (const width of [1280, 375]) {
        const context = await browser().newContext({ viewport: { width, height: 800 } });
        const page = await context.newPage();
        await page.goto(pathToFileURL(path).href);
        const where = `${name} report at ${width} px`;
        expect.soft(await seriousViolations(page), where).toEqual([]);
        expect.soft(await page.locator('main h1').count(), `${where}: the heading in main`).toBe(1);
        const layout = await pageWidth(page);
        expect.soft(layout.scrollWidth, `${where}: nothing wider than the page`).toBeLessThanOrEqual(layout.viewport);
        if (width === 375) {
          // What is wider than a phone is a table, and it scrolls in its own box.
          const boxes = await page
            .locator('.scroll')
            .evaluateAll((els) =>
              els.map((el) => ({ wider: el.scrollWidth > el.clientWidth, table: !!el.querySelector('table') })),
            );
          expect.soft(boxes.length, `${where}: its tables in boxes`).toBe(name === 'run' ? 2 : 1);
          expect
            .soft(boxes, `${where}: each box a table that scrolls`)
            .toEqual(boxes.map(() => ({ wider: true, table: true })));
        }
        // A cell that is markup is text on the page: no element is made of it.
        expect.soft(await page.locator('img').count(), `${where}: no element from a cell`).toBe(0);
        const rings = await focusRings(page);
        expect.soft(rings.length, `${where}: controls the keyboard reaches`).toBeGreaterThan(2);
        for (const ring of rings) {
          expect.soft(ring.style, `${where}: ${ring.what}`).not.toBe('none');
          expect.soft(ring.width, `${where}: ${ring.what}`).toBeGreaterThanOrEqual(2);
          expect.soft(ring.contrast, `${where}: ${ring.what}`).toBeGreaterThanOrEqual(3);
        }
        await shot(page, `report-${name}-${width}`);
        await context.close();
      }
    }
  });
});
