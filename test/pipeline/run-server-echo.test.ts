import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY, harness, payersCsv } from '../helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

/** The row's personal values (the harness's defaults), and the key. */
const ROW = {
  email: 'ada.lovelace@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  dateOfBirth: '1985-12-10',
  ssn: '123-45-6789',
  phone: '+12175550100',
  accountNumber: '000123456789',
};
/** What must not be anywhere, compared with case and separators taken out of both sides. */
const FORBIDDEN = [
  ROW.email,
  'Lovelace',
  '123456789',
  '12175550100',
  '2175550100',
  '19851210',
  '12101985',
  '10121985',
  ROW.accountNumber,
  API_KEY,
];
const plain = (text: string) => text.toLowerCase().replace(/[\s().,/\\_+-]/g, '');

function expectNothingPersonal(what: string, text: string): void {
  for (const value of FORBIDDEN) expect(plain(text), `${what} holds ${value}`).not.toContain(plain(value));
}

describe('run: a server that quotes the payer back in another call’s error', () => {
  it('leaves no personal value, in any spelling, and no key in any output', async () => {
    const message =
      `payer Ada Lovelace (ssn ${ROW.ssn} / 123 45 6789 / 123456789, phone +1 (217) 555-0100, born 12/10/1985 ` +
      `or 10.12.1985 or 19851210 or 1985-12-10, ${ROW.email}) already holds account 0001 2345 6789; ` +
      `key ${API_KEY.toUpperCase()}`;
    h.sandbox.script([{ route: 'payment-details', status: 400, body: { statusCode: 400, message } }]);
    const { summary, stderr, results } = await h.run({
      inputs: [h.tmp.write('payers.csv', payersCsv(['echo-1'], { 'echo-1': { email: ROW.email } }))],
      logLevel: 'trace',
    });

    expect(results).toHaveLength(1);
    expect(results[0]!.outcome).toBe('failed');
    // The server's words are kept, with the values cut out.
    expect(results[0]!.error).toBe(
      'payment-details: HTTP 400 payer [redacted] (ssn [redacted] / [redacted] / [redacted], phone [redacted], ' +
        'born [redacted] or [redacted] or [redacted] or [redacted], [redacted]) already holds account [redacted]; ' +
        'key [redacted]',
    );

    expect(summary.outputs.failed).toHaveLength(1);
    const failedText = readFileSync(summary.outputs.failed[0]!, 'utf8');
    const failed = parse(failedText, { columns: true }) as Record<string, string>[];
    // The failed file is the input given back: its own cells hold the payer's data, its error column does not.
    expect(failed[0]!.ssn).toBe(ROW.ssn);
    expect(failed[0]!.error).toContain('[redacted]');
    expectNothingPersonal('the failed file’s error', failed[0]!.error!);

    const outputs = {
      'results.csv': readFileSync(summary.outputs.results, 'utf8'),
      'run.log': readFileSync(summary.outputs.log, 'utf8'),
      'report.html': readFileSync(summary.outputs.report, 'utf8'),
      'summary.json': readFileSync(summary.outputs.summary, 'utf8'),
      stderr,
    };
    expect(outputs['run.log']).toContain('"level":20'); // request lines were written
    expect(outputs['report.html']).toContain('already holds account [redacted]');
    // report.html names the payer by the payer directory, in its payer cell and nowhere else: the server's words are
    // as scrubbed there as anywhere.
    const who = /<td class="who">.*?<\/td>/g;
    expect(outputs['report.html'].match(who)).toEqual([
      `<td class="who"><span class="name">Ada Lovelace</span> <span class="email">${ROW.email}</span> <span class="id">echo-1</span></td>`,
    ]);
    outputs['report.html'] = outputs['report.html'].replace(who, '');
    for (const [what, text] of Object.entries(outputs)) expectNothingPersonal(what, text);
  });
});

describe('run: a server that echoes the key base64-encoded', () => {
  it('leaves it in no output, in any of its encodings', async () => {
    const encodings = [
      Buffer.from(API_KEY).toString('base64'),
      Buffer.from(API_KEY).toString('base64url'),
      Buffer.from(`${API_KEY}:`).toString('base64'),
      Buffer.from(`api:${API_KEY}`).toString('base64url'),
    ];
    const message = `unauthorised here: Basic ${encodings[2]}, Basic ${encodings[3]}, token ${encodings[0]} / ${encodings[1]}`;
    h.sandbox.script([{ route: 'payment-details', status: 400, body: { statusCode: 400, message } }]);
    const { summary, results } = await h.run({
      inputs: [h.tmp.write('payers.csv', payersCsv(['echo-2']))],
      logLevel: 'trace',
    });

    expect(results[0]!.error).toBe(
      'payment-details: HTTP 400 unauthorised here: Basic [redacted], Basic [redacted], token [redacted] / [redacted]',
    );
    for (const path of [summary.outputs.results, summary.outputs.log, summary.outputs.report]) {
      const text = readFileSync(path, 'utf8');
      for (const encoded of encodings) expect(text, `${path} holds ${encoded}`).not.toContain(encoded);
    }
  });
});
