import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness } from '../helpers/runHarness.js';

// A JSONL file written by hand: the rows it could not read are named by their clientUserId where the line still shows
// it, their error says what is wrong in words, and the failed file carries that error on the line itself, so the
// line is fixed where it stands and the file is fed straight back.

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

const payer = (id: string, over: Record<string, unknown> = {}) =>
  JSON.stringify({
    clientUserId: id,
    email: `${id}@example.com`,
    firstName: 'Ada',
    lastName: 'Lovelace',
    beneficiaryType: 'individual',
    dateOfBirth: '1985-12-10',
    addressLine1: '12 Analytical Way',
    city: 'Cambridge',
    state: 'MA',
    postcode: '02139',
    country: 'US',
    nationality: 'US',
    phone: '+12175550100',
    ssn: '123-45-6789',
    ...over,
  });

const COMMA =
  '(line): is not valid JSON: a trailing comma after the value of "ssn", before the closing }: remove that comma';
const LIST =
  '(line): is a list ([...]), not one object: write each object ({"clientUserId": "...", ...}) on a line of its own, without [ ]';

describe('run: JSONL lines that are not objects, and JSON numbers', () => {
  it('names the row, says the fault in words, and keeps the error on the failed line, which runs again once fixed', async () => {
    const lines = [
      payer('j-ok'),
      `${payer('j-comma').slice(0, -1)},}`,
      `[${payer('j-list')}]`,
      payer('j-zip', { postcode: 2139 }),
      payer('j-zip-text', { postcode: '2139' }),
    ];
    const input = h.tmp.write('payers.jsonl', `${lines.join('\n')}\n`);

    const first = await h.run({ agreementSignedElsewhere: true, inputs: [input] });
    expect(first.summary.exitCode).toBe(1);
    expect(first.results.map((r) => [r.line, r.clientUserId, r.outcome, r.error])).toEqual([
      ['1', 'j-ok', 'ok', ''],
      ['2', 'j-comma', 'invalid', COMMA],
      ['3', 'j-list', 'invalid', LIST],
      [
        '4',
        'j-zip',
        'invalid',
        'postcode: is a JSON number, which cannot keep leading zeros: write it as a string with all its digits ("postcode": "..."), got "2139"',
      ],
      [
        '5',
        'j-zip-text',
        'invalid',
        'postcode: has 4 digits, and a postal code in US has 5: looks like a leading zero was lost: write it with all its digits, as a string ("postcode": "0..."), got "2139"',
      ],
    ]);

    const failedPath = first.summary.outputs.failed[0]!;
    const failed = readFileSync(failedPath, 'utf8').split('\n');
    expect(failed[0]).toBe(
      `{"error":${JSON.stringify(COMMA)},"completedSteps":"from=payers.jsonl:2",${lines[1]!.slice(1)}`,
    );
    expect(failed[1]).toBe(`{"error":${JSON.stringify(LIST)},"completedSteps":"from=payers.jsonl:3"} ${lines[2]}`);

    // Given back unfixed: the same errors, the rows still named by their first place, one note on each line.
    const again = await h.run({ agreementSignedElsewhere: true, inputs: [failedPath] });
    expect(again.results.slice(0, 2).map((r) => [r.source, r.line, r.clientUserId, r.error])).toEqual([
      ['payers.jsonl', '2', 'j-comma', COMMA],
      ['payers.jsonl', '3', 'j-list', LIST],
    ]);
    const failedAgain = readFileSync(again.summary.outputs.failed[0]!, 'utf8').split('\n');
    expect(failedAgain.slice(0, 2)).toEqual(failed.slice(0, 2));

    // Fixed where they stand (the comma taken out; the list's object kept after its note), and fed back: all ok.
    const fixed = [
      failed[0]!.replace(/,\}$/, '}'),
      failed[1]!.replace('"} [{"', '","').replace(/\}\]$/, '}'),
      failed[2]!.replace('"postcode":2139', '"postcode":"02139"'),
      failed[3]!.replace('"postcode":"2139"', '"postcode":"02139"'),
    ];
    const third = await h.run({
      agreementSignedElsewhere: true,
      inputs: [h.tmp.write('fixed.jsonl', `${fixed.join('\n')}\n`)],
    });
    expect(third.results.map((r) => [r.source, r.line, r.clientUserId, r.outcome])).toEqual([
      ['payers.jsonl', '2', 'j-comma', 'ok'],
      ['payers.jsonl', '3', 'j-list', 'ok'],
      ['payers.jsonl', '4', 'j-zip', 'ok'],
      ['payers.jsonl', '5', 'j-zip-text', 'ok'],
    ]);
    expect(h.sandbox.payer('j-zip')!.request).toMatchObject({ postcode: '02139' });
  });
});
