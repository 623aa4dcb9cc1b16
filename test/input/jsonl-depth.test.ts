import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/pipeline/run.js';
import { readResults } from '../helpers/runHarness.js';
import { tempDir } from '../helpers/tempDir.js';

// A line nested thousands deep, broken or valid JSON, ends as that line's problem in a sentence: never a stack
// overflow, neither while the line is walked for its words nor while the failed file is written; fed back as it is
// written, it says the same again.
const TOO_DEEP =
  '(line): nests more than 32 levels of { } or [ ]: a payer row is one object of fields, with its bank accounts a level down in paymentDetails';

describe('a JSONL line nested deeper than a row can', () => {
  it.each([
    [
      '5,000 [ never closed',
      `{"clientUserId": "x-1", "notes": ${'['.repeat(5000)}`,
      `(line): is not valid JSON: ${TOO_DEEP.slice(8)}`,
    ],
    ['valid, 4,500 deep', `{"clientUserId": "x-1", "notes": ${'['.repeat(4500)}${']'.repeat(4500)}}`, TOO_DEEP],
  ])(
    '%s: the row is invalid with one sentence, the others go on, and the failed file says it again',
    async (_, line, said) => {
      const tmp = tempDir();
      const input = tmp.write('deep.jsonl', `${line}\n{"clientUserId": "ok-1"}\n`);
      const summary = await run({ inputs: [input], out: tmp.path('out'), command: 'validate' }, { cwd: tmp.dir });
      expect(summary.exitCode).toBe(1);
      const rows = readResults(summary.outputs.results);
      expect(rows.map((r) => [r.clientUserId, r.outcome])).toEqual([
        ['x-1', 'invalid'],
        ['ok-1', 'invalid'],
      ]);
      expect(rows[0]!.error).toBe(said);

      const failed = summary.outputs.failed[0]!;
      expect(readFileSync(failed, 'utf8').split('\n')[0]).toContain('"error":"(line)');
      const again = await run({ inputs: [failed], out: tmp.path('again'), command: 'validate' }, { cwd: tmp.dir });
      expect(readResults(again.outputs.results)[0]!.error).toBe(said);
    },
  );
});
