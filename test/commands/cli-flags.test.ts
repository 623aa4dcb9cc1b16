import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../src/cli.js';
import { templateCsv } from '../../src/commands/templateCommand.js';
import { memoryStream } from '../helpers/runHarness.js';
import { tempDir } from '../helpers/tempDir.js';

// Flags as a person types them: `-` for stdout after a space, a key given as a flag, and help that offers only
// what the command takes.

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  tmp.remove();
});

async function payerOnboard(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out = memoryStream();
  const err = memoryStream();
  const code = await cli(args, {
    stdout: out.stream,
    stderr: err.stream,
    env,
    cwd: tmp.dir,
    signal: new AbortController().signal,
  });
  return { code, stdout: out.text(), stderr: err.text() };
}

describe('template --out -', () => {
  it.each([[['--out', '-']], [['--out=-']]])('%j writes the template to stdout', async (flags) => {
    const r = await payerOnboard(['template', ...flags]);
    expect(r).toEqual({ code: 0, stdout: templateCsv(), stderr: '' });
    expect(existsSync(tmp.path('-'))).toBe(false);
  });
});

describe('the API key as a flag', () => {
  it.each(['run', 'validate', 'status', 'inbox'])(
    '%s --api-key is refused, pointing at the ways to give it',
    async (command) => {
      const r = await payerOnboard([command, 'payers.csv', '--api-key', 'sk_live_123'], { PAYER_API_KEY: 'k' });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        'payer-onboard: --api-key: the key is never taken as a flag value (it would stay in your shell history and show in ps): set PAYER_API_KEY, or put the key in a file and give --api-key-file FILE\n',
      );
    },
  );
});

describe('the database URL as a flag', () => {
  it.each(['run', 'status', 'inbox'])(
    '%s --database-url is refused, pointing at the ways to give it',
    async (command) => {
      const r = await payerOnboard([command, 'payers.csv', '--database-url', 'postgres://u:s3cret@db/x'], {
        PAYER_API_KEY: 'k',
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        'payer-onboard: --database-url: the database URL holds its password, so it is never taken as a flag value (it would stay in your shell history and show in ps): set PAYER_ONBOARD_DATABASE_URL, or put the URL in a file and give --database-url-file FILE\n',
      );
      expect(r.stderr).not.toContain('s3cret');
    },
  );
});

describe('--help', () => {
  it("status offers no --sandbox: it is not one of status's options", async () => {
    const help = (await payerOnboard(['status', '--help'])).stdout;
    expect(help).toContain('--base-url');
    expect(help).toContain('API root (required);');
    expect(help).not.toContain('sandbox');
    expect(help).not.toContain('--api-key ');
    expect((await payerOnboard(['status', 'p.csv', '--sandbox'])).stderr).toContain('Unknown argument: sandbox');
  });

  it.each(['run', 'validate', 'status'])('%s lists its input files with no default', async (command) => {
    const help = (await payerOnboard([command, '--help'])).stdout;
    const line = help.split('\n').find((l) => l.trimStart().startsWith('input'));
    expect(line).toMatch(/\[array\] \[required\]$/);
    expect(help).not.toContain('[default: []]');
  });

  it('run lists --limit and --only for a trial run', async () => {
    const help = (await payerOnboard(['run', '--help'])).stdout;
    expect(help).toMatch(/--limit +a trial run: only the first N data rows of each file/);
    expect(help).toMatch(/--only +a trial run: only the rows of these clientUserIds/);
  });
});
