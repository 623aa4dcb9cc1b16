import { readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError, PayerOnboardError } from '../../src/core/errors.js';
import { run } from '../../src/pipeline/run.js';
import { API_KEY, harness, PAYER_HEADER, payerRow, payersCsv, readResults } from '../helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

async function rejected(inputs: string[]): Promise<PayerOnboardError> {
  try {
    await h.run({ inputs });
  } catch (error) {
    expect(error).toBeInstanceOf(PayerOnboardError);
    return error as PayerOnboardError;
  }
  throw new Error('expected the run to be rejected');
}

describe('run: a file that cannot be used is rejected before anything is sent (exit 2)', () => {
  it.each([
    [
      'payers.xlsx',
      'x',
      'payers.xlsx: is not a readable .xlsx workbook (a password-protected or damaged file, or another format renamed .xlsx): save it again from Excel as .xlsx',
    ],
    ['empty.csv', '', 'empty.csv: is empty: expected a header line and at least one row'],
    ['header.csv', `${PAYER_HEADER}\n`, 'header.csv: has a header but no rows'],
    [
      'quote.csv',
      `${PAYER_HEADER}\n${payerRow('p-1')}\np-2,"p-2@example.com,Ada\n${payerRow('p-3')}\n`,
      'quote.csv:3: a quoted field opened here is never closed: check for a stray `"`',
    ],
  ])('%s', async (name, content, message) => {
    const good = h.tmp.write('good.csv', payersCsv(['g-1']));
    const error = await rejected([good, h.tmp.write(name, content)]);
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toBe(message);
    expect(error.exitCode).toBe(2);
    expect(h.sandbox.stats().requests).toBe(0);
  });

  it('a missing file, named by the path looked for; no results folder is left behind', async () => {
    const error = await run(
      { inputs: [h.tmp.path('nope.csv')], baseUrl: h.sandbox.url, stateDir: h.tmp.path('state') },
      { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY } },
    ).then(
      () => undefined,
      (e: unknown) => e as PayerOnboardError,
    );
    expect(error?.message).toBe(
      `nope.csv: no such file (looked for ${h.tmp.path('nope.csv')}): check its name and folder`,
    );
    expect(error?.exitCode).toBe(2);
    expect(readdirSync(h.tmp.dir)).not.toContain('payer-onboard-results');
  });

  it('a non-UTF-8 byte after UTF-8 text, naming line and column', async () => {
    // Windows-1252 is assumed only when no UTF-8 came first (test/encoding-csv.test.ts): here `Zoë` is UTF-8.
    const content = Buffer.concat([
      Buffer.from(`${PAYER_HEADER}\n${payerRow('p-1', { firstName: 'Zoë' })}\n`),
      Buffer.from('p-2,x@example.com,J'),
      Buffer.from([0xfc]),
      Buffer.from('rgen\n'),
    ]);
    const error = await rejected([h.tmp.write('latin.csv', content)]);
    expect(error.message).toBe('latin.csv:3:20: is not valid UTF-8 (byte 0xfc): save the file as "CSV UTF-8"');
    expect(h.sandbox.stats().requests).toBe(0);
  });

  it('still writes summary.json (0600) saying why, and nothing else', async () => {
    const out = h.tmp.path('out-stopped');
    const input = h.tmp.write('cols.csv', 'clientUserId,email\np-1,a@example.com\n');
    const error = await h.run({ inputs: [input], out }).catch((e: unknown) => e as PayerOnboardError);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({
      command: 'run',
      exitCode: 2,
      stopped: { code: 'E_INPUT', message: (error as PayerOnboardError).message },
      inputs: [{ source: 'cols.csv', rows: 0 }],
      rows: { total: 0 },
      requests: { total: 0 },
    });
    expect(statSync(join(out, 'summary.json')).mode & 0o777).toBe(0o600);
    expect(readdirSync(out)).toEqual(['summary.json']);
  });

  it('a run stopped by an input it cannot read again (pass 2) leaves its results with a summary that says why', async () => {
    const out = h.tmp.path('out-moved');
    // An unknown column: its warning is written between the check pass and the send pass, and the file goes then.
    const input = h.tmp.write(
      'moved.csv',
      payersCsv(['m-1'])
        .replace('\n', ',note\n')
        .replace(/\n(?=.)/g, ',x\n'),
    );
    const stderr = new Writable({
      write(chunk, _enc, done) {
        if (String(chunk).includes('column "note"')) unlinkSync(input);
        done();
      },
    });
    const error = await run(
      { inputs: [input], out, baseUrl: h.sandbox.url, stateDir: h.tmp.path('state'), rate: 0 },
      { cwd: h.tmp.dir, stderr, env: { PAYER_API_KEY: API_KEY } },
    ).catch((e: unknown) => e as PayerOnboardError);
    expect(error).toBeInstanceOf(InputError);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({
      exitCode: 2,
      stopped: {
        code: 'E_INPUT',
        message: `moved.csv: no such file (looked for ${input}): check its name and folder`,
      },
      inputs: [{ source: 'moved.csv', format: 'csv', rows: 1 }],
      requests: { total: 0 },
    });
    expect(readdirSync(out).sort()).toEqual(['results.csv', 'run.log', 'summary.json']);
  });

  it('validate reads a file once: damage found past its first rows still stops it with the message and exit code a check pass gives', async () => {
    const rows = `${payerRow('p-1')}\n${payerRow('p-2')}\np-3,"p-3@example.com,Ada\n${payerRow('p-4')}\n`;
    const quote = h.tmp.write('quote.csv', `${PAYER_HEADER}\n${rows}`);
    const checked = await rejected([quote]);
    const out = h.tmp.path('out-once');
    const error = (await run({ inputs: [quote], out, command: 'validate' }, { cwd: h.tmp.dir }).catch(
      (e: unknown) => e,
    )) as PayerOnboardError;
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toBe(checked.message);
    expect(error.message).toBe('quote.csv:4: a quoted field opened here is never closed: check for a stray `"`');
    expect(error.exitCode).toBe(2);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    // The rows before the damage were checked and are in results.csv; the summary says where it stopped and why.
    expect(summary).toMatchObject({
      command: 'validate',
      exitCode: 2,
      stopped: { code: 'E_INPUT', message: checked.message },
      inputs: [{ source: 'quote.csv', rows: 2 }],
      rows: { total: 2, ok: 2 },
    });
    expect(readResults(join(out, 'results.csv')).map((r) => r.line)).toEqual(['2', '3']);
  });

  it('validate of a long file damaged near its end: results.csv holds every row the summary counts, failed file listed', async () => {
    // Long enough that the results file pushes back while rows are still being read; every tenth row is invalid.
    const ids = Array.from({ length: 3000 }, (_, i) => `l-${i}`);
    const over = Object.fromEntries(ids.filter((_, i) => i % 10 === 0).map((id) => [id, { dateOfBirth: 'soon' }]));
    const text = payersCsv(ids, { ...over, 'l-1': { firstName: 'José' } });
    const bytes = Buffer.concat([Buffer.from(text), Buffer.from('l-x,'), Buffer.from([0xff]), Buffer.from('\n')]);
    const damaged = h.tmp.write('long.csv', bytes);
    const out = h.tmp.path('out-long');
    const error = (await run({ inputs: [damaged], out, command: 'validate' }, { cwd: h.tmp.dir }).catch(
      (e: unknown) => e,
    )) as PayerOnboardError;
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(/^long\.csv:3002:5: is not valid UTF-8 \(byte 0xff\)/);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    const results = readResults(join(out, 'results.csv'));
    expect(results.length).toBe(summary.rows.total);
    expect(summary.rows.invalid).toBe(results.filter((r) => r.outcome === 'invalid').length);
    expect(summary.outputs.failed).toEqual([join(out, 'failed-long.csv')]);
    const failedLines = readFileSync(join(out, 'failed-long.csv'), 'utf8').trim().split('\n').length - 1;
    expect(failedLines).toBe(summary.rows.invalid);
  });

  it('validate reads a file once: a byte that is not UTF-8 after UTF-8 text stops it as a check pass would', async () => {
    const text = `${PAYER_HEADER}\n${payerRow('p-1', { firstName: 'José' })}\n${payerRow('p-2')}\n`;
    const bytes = Buffer.concat([Buffer.from(text), Buffer.from('p-3,'), Buffer.from([0xff]), Buffer.from('\n')]);
    const damaged = h.tmp.write('damaged.csv', bytes);
    const checked = await rejected([damaged]);
    const error = (await run(
      { inputs: [damaged], out: h.tmp.path('out-utf8'), command: 'validate' },
      { cwd: h.tmp.dir },
    ).catch((e: unknown) => e)) as PayerOnboardError;
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toBe(checked.message);
    expect(error.message).toMatch(/^damaged\.csv:4:5: is not valid UTF-8 \(byte 0xff\)/);
  });

  it('missing required columns, named', async () => {
    const error = await rejected([h.tmp.write('cols.csv', 'clientUserId,email,First Name\np-1,a@example.com,Ada\n')]);
    expect(error.message).toBe(
      'cols.csv:1: missing required columns lastName, beneficiaryType, dateOfBirth, addressLine1, city, state, postcode, country, nationality, phone, ssn; every column of the header is understood (clientUserId, email, First Name): add the missing columns',
    );
  });
});

describe("run: a bad row is that row's problem; every valid row still goes through", () => {
  it('a ragged row and a 1 MB cell', async () => {
    const csv = `${PAYER_HEADER}\n${payerRow('p-1')}\np-2,short,row\n${payerRow('p-3', { addressLine1: 'x'.repeat(1024 * 1024) })}\n${payerRow('p-4')}\n`;
    const { summary, results } = await h.run({
      agreementSignedElsewhere: true,
      inputs: [h.tmp.write('rows.csv', csv)],
    });
    expect(summary.exitCode).toBe(1);
    expect(results.map((r) => [r.line, r.outcome])).toEqual([
      ['2', 'ok'],
      ['3', 'invalid'],
      ['4', 'invalid'],
      ['5', 'ok'],
    ]);
    expect(results[1]!.error).toBe('(row): has 3 cells but the header has 21: check for a missing or extra delimiter');
    expect(results[2]!.error).toBe('addressLine1: is 1048576 characters long, at most 10000');
    expect(h.sandbox.stats().payersCreated).toBe(2);
  });

  it('a JSONL line that is not JSON', async () => {
    const good = (id: string) =>
      JSON.stringify({
        clientUserId: id,
        email: `${id}@example.com`,
        firstName: 'A',
        lastName: 'B',
        beneficiaryType: 'individual',
        dateOfBirth: '1980-01-01',
        addressLine1: '1 St',
        city: 'C',
        state: 'S',
        postcode: '12345',
        country: 'US',
        nationality: 'US',
        phone: '+12175550100',
        ssn: '1',
      });
    const { summary, results } = await h.run({
      agreementSignedElsewhere: true,
      inputs: [h.tmp.write('p.jsonl', `${good('j-1')}\n{"clientUserId": "j-2",\n${good('j-3')}\n`)],
    });
    expect(summary.rows).toMatchObject({ ok: 2, invalid: 1 });
    expect(results.map((r) => [r.line, r.outcome])).toEqual([
      ['1', 'ok'],
      ['2', 'invalid'],
      ['3', 'ok'],
    ]);
    expect(h.sandbox.payer('j-1')!.request).toMatchObject({ postcode: '12345' });
  });
});
