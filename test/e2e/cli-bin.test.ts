import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { API_KEY, harness, payersCsv } from '../helpers/runHarness.js';
import { spawnBin } from '../helpers/spawnBin.js';

// These spawn the real bin as a user would (after `npm run build`, which `npm test` does first).
const bin = (args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) => spawnBin(args, options).done;

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

describe('the payer-onboard bin', () => {
  it('runs a file against a base URL with the key from the environment, --json on stdout only', async () => {
    h.tmp.write('payers.csv', payersCsv(['b-1', 'b-2']));
    const r = await bin(['run', 'payers.csv', '--base-url', h.sandbox.url, '--out', 'out', '--json', '--rate', '0'], {
      cwd: h.tmp.dir,
      env: { PAYER_API_KEY: API_KEY },
    });
    expect(r.stderr).toContain('2 ok, 0 waiting, 0 invalid, 0 failed');
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.rows).toMatchObject({ total: 2, ok: 2 });
    expect(summary.exitCode).toBe(0);
    const results = parse(readFileSync(join(h.tmp.dir, 'out', 'results.csv'), 'utf8'), { columns: true }) as Array<
      Record<string, string>
    >;
    expect(results.map((x) => x.outcome)).toEqual(['ok', 'ok']);
    expect(statSync(join(h.tmp.dir, 'out', 'results.csv')).mode & 0o777).toBe(0o600);
  });

  it('reads the key from --api-key-file and refuses a plain --api-key flag', async () => {
    h.tmp.write('payers.csv', payersCsv(['b-1']));
    h.tmp.write('key.txt', `${API_KEY}\n`);
    const ok = await bin(
      ['run', 'payers.csv', '--base-url', h.sandbox.url, '--api-key-file', 'key.txt', '--out', 'out', '--rate', '0'],
      { cwd: h.tmp.dir },
    );
    expect(ok.code).toBe(0);
    const flag = await bin(['run', 'payers.csv', '--base-url', h.sandbox.url, '--api-key', API_KEY], {
      cwd: h.tmp.dir,
    });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe(
      'payer-onboard: --api-key: the key is never taken as a flag value (it would stay in your shell history and show in ps): set PAYER_API_KEY, or put the key in a file and give --api-key-file FILE\n',
    );
  });

  it('exits 2 with a clear message and sends nothing without a key or base URL', async () => {
    h.tmp.write('payers.csv', payersCsv(['b-1']));
    const r = await bin(['run', 'payers.csv'], { cwd: h.tmp.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('needs its address and your API key: set PAYER_API_BASE_URL and PAYER_API_KEY');
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('refuses plain http to a host that is not loopback', async () => {
    h.tmp.write('payers.csv', payersCsv(['b-1']));
    const r = await bin(['run', 'payers.csv', '--base-url', 'http://api.example.com'], {
      cwd: h.tmp.dir,
      env: { PAYER_API_KEY: API_KEY },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--base-url: plain http:// to api.example.com would send the key and personal data unencrypted',
    );
  });

  it('exits 2 naming file and line for an unparseable file', async () => {
    h.tmp.write('bad.csv', `${payersCsv(['p-1'])}"p-2,a@example.com\n`);
    const r = await bin(['validate', 'bad.csv'], { cwd: h.tmp.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('bad.csv:3: a quoted field opened here is never closed');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('rehearses with --sandbox and writes a template', async () => {
    const t = await bin(['template', '--out', 'template.csv'], { cwd: h.tmp.dir });
    expect(t.code).toBe(0);
    const r = await bin(['run', 'template.csv', '--sandbox', '--out', 'out'], { cwd: h.tmp.dir });
    // The rehearsal's sandbox behaves like the service: the payer is registered, its bank account waits for KYC.
    expect(r.stderr).toContain('0 ok, 1 waiting, 0 invalid');
    expect(r.code).toBe(0);
  });

  it('prints usage for an unknown option with exit 2', async () => {
    const r = await bin(['run', 'x.csv', '--concurency', '3'], { cwd: h.tmp.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Unknown argument: concurency');
  });
});
