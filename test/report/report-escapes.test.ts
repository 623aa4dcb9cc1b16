import { afterEach, describe, expect, it } from 'vitest';
import { readReport } from '../helpers/reportFixtures.js';
import { harness, payersCsv } from '../helpers/runHarness.js';

// report.html shows what a spreadsheet holds: a cell that is markup must reach the page as text, whichever part of the
// page it lands in (the table of rows, a message that quotes it, a warning about the header).

let h: Awaited<ReturnType<typeof harness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const IMG = '<img src=x onerror=alert(1)>';
const IMG_TEXT = '&lt;img src=x onerror=alert(1)&gt;';
const HEADER = '<b onmouseover=alert(2)>Notes</b>';

describe('report.html, given cells that are markup', () => {
  it('shows them as text in the rows, in the messages that quote them and in the warnings', async () => {
    h = await harness();
    // The same payer twice (the second row's message quotes its id), and a column the tool does not know.
    const csv = payersCsv([IMG, IMG], { [IMG]: { email: 'not-an-email' } })
      .split('\n')
      .map((line, i) => (line === '' ? line : `${line},${i === 0 ? `"${HEADER}"` : 'x'}`))
      .join('\n');
    const input = h.tmp.write('payers.csv', csv);
    const { summary, results } = await h.run({ inputs: [input], command: 'validate' });
    expect(results.map((r) => [r.clientUserId, r.outcome])).toEqual([
      [IMG, 'invalid'],
      [IMG, 'invalid'],
    ]);
    const html = readReport(summary.outputs.report);

    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b onmouseover');
    expect(html).toContain(`<td>2</td><td class="who"><span class="id">${IMG_TEXT}</span></td>`);
    expect(html).toContain(`<td>3</td><td class="who"><span class="id">${IMG_TEXT}</span></td>`);
    expect(html).toContain(`&quot;${IMG_TEXT}&quot; appears again: the same payer is already on line 2`);
    expect(html).toContain(
      '<li data-next="warning">payers.csv: column &quot;&lt;b onmouseover=alert(2)&gt;Notes&lt;/b&gt;&quot; is not a known field',
    );
  });
});
