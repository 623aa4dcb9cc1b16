import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, payersCsv, readResults } from '../helpers/runHarness.js';
import { spawnBin } from '../helpers/spawnBin.js';
import { tempDir } from '../helpers/tempDir.js';

let tmp: ReturnType<typeof tempDir> | undefined;
afterEach(() => {
  tmp?.remove();
  tmp = undefined;
});

/** A port nothing listens on: a server's, closed again. */
async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('run: an API that cannot be reached', () => {
  it('a refused port: exit 3 within seconds, one line naming the URL and the cause, every row skipped', async () => {
    tmp = tempDir();
    const ids = Array.from({ length: 40 }, (_, i) => `u-${i + 1}`);
    tmp.write('payers.csv', payersCsv(ids));
    const url = `http://127.0.0.1:${await refusedPort()}`;
    // The default retries and backoff: what a user gets.
    const { code, stderr } = await spawnBin(
      ['run', 'payers.csv', '--base-url', url, '--out', 'out', '--state-dir', 'state', '--no-progress'],
      { cwd: tmp.dir, env: { PAYER_API_KEY: API_KEY } },
    ).done;

    expect(code).toBe(3);
    const reach = stderr.split('\n').filter((line) => line.includes('cannot reach'));
    expect(reach).toEqual([`  ABORTED: cannot reach ${url}: ECONNREFUSED`]);

    const out = join(tmp.dir, 'out');
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({
      exitCode: 3,
      aborted: { reason: 'unreachable', message: `cannot reach ${url}: ECONNREFUSED` },
      rows: { total: 40, skipped: 40, failed: 0 },
    });
    // Stopped at the first call out of retries: fewer requests than rows, where every row spending its retries sent
    // several each (counted, not timed: the machines are shared).
    expect(summary.requests.total).toBeLessThan(40);
    const results = readResults(join(out, 'results.csv'));
    expect(results.map((r) => r.outcome)).toEqual(Array(40).fill('skipped'));
    // Nothing to fix in them: every row waits in the pending file for the next run.
    expect(existsSync(join(out, 'pending-payers.csv'))).toBe(true);
    expect(existsSync(join(out, 'failed-payers.csv'))).toBe(false);
  });
});
