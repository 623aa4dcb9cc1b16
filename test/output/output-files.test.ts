import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CsvFileWriter } from '../../src/output/CsvFileWriter.js';
import { RowFiles } from '../../src/output/RowFiles.js';
import { OrderedSink, RESULT_COLUMNS, doneSteps, resultRecord } from '../../src/output/results.js';
import { tempDir } from '../helpers/tempDir.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  tmp.remove();
});

describe('results.csv lines', () => {
  it('has the documented columns in order', () => {
    expect(RESULT_COLUMNS.join(',')).toBe(
      'source,line,clientUserId,outcome,userId,agreementStatus,kycStatus,agreementUrl,kycUrl,paymentDetailId,agreementCompleted,steps,error',
    );
  });

  it('writes steps in call order, joins payment detail ids and guards server text against formula injection', () => {
    const record = resultRecord({
      source: 'p.csv',
      line: 7,
      clientUserId: 'u1',
      result: {
        outcome: 'failed',
        userId: 'a1b2',
        agreementStatus: '=HYPERLINK("x")',
        kycStatus: 'not_started',
        paymentDetailIds: ['pd-1', 'pd-2'],
        agreementCompleted: true,
        steps: { agreement: 'failed', compliance: 'done-before', 'payment-details': 'ok' },
        errors: [{ step: 'agreement', message: 'HTTP 400 agreementCompleted must be provided' }, { message: 'x' }],
      },
    });
    expect(record).toEqual([
      'p.csv',
      '7',
      'u1',
      'failed',
      'a1b2',
      `'=HYPERLINK("x")`,
      'not_started',
      '',
      '',
      'pd-1;pd-2',
      'true',
      'compliance=done-before payment-details=ok agreement=failed',
      'agreement: HTTP 400 agreementCompleted must be provided | x',
    ]);
  });

  it('lists the steps a re-run may skip: done now, updated, or done before; never waiting, failed or skipped ones', () => {
    expect(
      doneSteps({
        outcome: 'failed',
        paymentDetailIds: [],
        errors: [],
        steps: { compliance: 'done-before', 'payment-details': 'failed', agreement: 'ok' },
      }),
    ).toEqual(['compliance', 'agreement']);
    expect(
      doneSteps({
        outcome: 'waiting',
        paymentDetailIds: [],
        errors: [],
        steps: { compliance: 'ok', 'payment-details': 'waiting', agreement: 'skipped' },
      }),
    ).toEqual(['compliance']);
  });
});

describe('output files', () => {
  it('are created mode 0600, even when the file was there before with a wider mode', async () => {
    const path = tmp.path('results.csv');
    writeFileSync(path, 'old', { mode: 0o644 });
    const writer = new CsvFileWriter(path, ['a', 'b']);
    await writer.write(['1', '2']);
    await writer.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe('a,b\n1,2\n');
  });

  it("writes failed CSV rows in the input's dialect with the original cells, replacing an earlier error/completedSteps pair", async () => {
    const failed = new RowFiles(
      tmp.dir,
      { path: 'x', name: 'in.csv', format: 'csv' },
      ['Id', 'Note', 'error', 'completedSteps'],
      { delimiter: ';', bom: true, eol: '\r\n' },
    );
    expect(failed.written()).toEqual({});
    await failed.write({
      outcome: 'failed',
      original: ['u1', ' keep  spaces; and "quotes" ', 'old error', 'compliance'],
      errors: [{ message: '-bad' }],
      completedSteps: 'compliance;agreement',
    });
    await failed.close();
    const path = failed.written().failed!;
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe(
      '\uFEFFId;Note;error;completedSteps\r\nu1;" keep  spaces; and ""quotes"" ";\'-bad;"compliance;agreement"\r\n',
    );
  });

  it('writes failed JSONL rows as the same objects plus error and completedSteps, a bad line with them in a note', async () => {
    const failed = new RowFiles(tmp.dir, { path: 'x', name: 'in.jsonl', format: 'jsonl' });
    await failed.write({
      outcome: 'invalid',
      original: '{"clientUserId":"u1","postcode":90210}',
      errors: [{ column: 'email', message: 'is required' }],
      completedSteps: '',
    });
    await failed.write({
      outcome: 'invalid',
      original: '{"broken',
      errors: [{ column: '(line)', message: 'is not valid JSON' }],
      completedSteps: 'from=in.jsonl:2',
    });
    await failed.write({
      outcome: 'invalid',
      original: '"u2"',
      errors: [{ column: '(line)', message: 'is a JSON text' }],
      completedSteps: '',
    });
    await failed.close();
    expect(readFileSync(tmp.path('failed-in.jsonl'), 'utf8')).toBe(
      '{"clientUserId":"u1","postcode":90210,"error":"email: is required","completedSteps":""}\n' +
        '{"error":"(line): is not valid JSON","completedSteps":"from=in.jsonl:2","broken\n' +
        '{"error":"(line): is a JSON text","completedSteps":""} "u2"\n',
    );
  });
});

describe('OrderedSink', () => {
  it('emits in reservation order whatever the completion order', async () => {
    const seen: number[] = [];
    const sink = new OrderedSink<number>((n) => {
      seen.push(n);
    });
    const seqs = [0, 1, 2, 3].map(() => sink.reserve());
    sink.complete(seqs[2]!, 2);
    sink.complete(seqs[0]!, 0);
    expect(sink.open).toBe(3);
    sink.complete(seqs[3]!, 3);
    sink.complete(seqs[1]!, 1);
    await sink.flush();
    expect(seen).toEqual([0, 1, 2, 3]);
    expect(sink.open).toBe(0);
  });
});
