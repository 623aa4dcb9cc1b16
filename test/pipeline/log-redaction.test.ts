import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, logRoom } from '../../src/pipeline/log.js';
import { removeTempDirs, tempDir } from '../helpers/tempDir.js';

afterEach(removeTempDirs);

// The code never hands the logger a person's data; the log still censors the keys that would hold it, in its own
// walk of a line's first three levels, and leaves every other value, and the caller's object, as they were.

describe('the run log', () => {
  it('censors personal and secret keys down to three levels, and nothing else', async () => {
    const tmp = tempDir();
    const path = tmp.path('run.log');
    const log = createLogger(path, 'info');
    const logged = {
      row: 'payers.csv:2',
      ssn: '123-45-6701',
      payer: { email: 'ada@example.com', name: 'kept', bank: { accountNumber: '000123456789', rails: 'local' } },
      req: { headers: { 'x-api-key': 'secret-key', accept: 'json' } },
      rows: [{ phone: '+12175550100' }],
      body: { anything: 'at all' },
      deep: { a: { b: { ssn: 'four levels down is not looked at' } } },
      getter: Object.defineProperty({}, 'email', { get: () => 'ada@example.com', enumerable: true }),
    };
    log.logger.info(logged, 'row not ok');
    const error = Object.assign(new Error('boom'), { apiKey: 'secret-key' });
    log.logger.warn({ err: error }, 'an error with a key');
    await log.close();

    const [first, second] = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(first).toMatchObject({
      row: 'payers.csv:2',
      ssn: '[redacted]',
      payer: { email: '[redacted]', name: 'kept', bank: { accountNumber: '[redacted]', rails: 'local' } },
      req: { headers: { 'x-api-key': '[redacted]', accept: 'json' } },
      rows: [{ phone: '[redacted]' }],
      body: '[redacted]',
      deep: { a: { b: { ssn: 'four levels down is not looked at' } } },
      getter: { email: '[redacted]' },
      msg: 'row not ok',
    });
    expect(second.err).toMatchObject({ message: 'boom', apiKey: '[redacted]' });
    // The caller's objects are not changed.
    expect(logged.payer.email).toBe('ada@example.com');
    expect(error.apiKey).toBe('secret-key');
  });

  it('makes the rows wait while it holds over a megabyte unwritten, and lets them go once it is written', async () => {
    const tmp = tempDir();
    const path = tmp.path('run.log');
    const log = createLogger(path, 'info');
    expect(logRoom(log.logger)).toBeUndefined();
    const line = 'x'.repeat(1000);
    let waited = 0;
    for (let i = 0; i < 5000; i++) {
      log.logger.info({ row: `payers.csv:${i}`, line }, 'row not ok');
      const room = logRoom(log.logger);
      if (room === undefined) continue;
      waited++;
      await room;
      expect(logRoom(log.logger)).toBeUndefined();
    }
    await log.close();
    expect(waited).toBeGreaterThan(0);
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(5000);
  });
});
