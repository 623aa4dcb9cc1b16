import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import yargs from 'yargs';
import { cli, commands, topLevelHelp, VERSION as CLI_VERSION } from '../../src/cli.js';
import { payersCsv } from '../helpers/runHarness.js';
import { spawnBin } from '../helpers/spawnBin.js';
import { tempDir } from '../helpers/tempDir.js';

// What a newcomer meets before any row is read, through the real bin (`npm test` builds it first).
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const bin = (args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) => spawnBin(args, options).done;
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  tmp.remove();
});

describe('payer-onboard --version and --help', () => {
  it('prints the package version, exit 0', async () => {
    const r = await bin(['--version'], { cwd: tmp.dir });
    expect(r.stdout).toBe(`${VERSION}\n`);
    expect(r.code).toBe(0);
    // A command's own --version says the same (yargs answers it there).
    const inRun = await bin(['validate', '--version'], { cwd: tmp.dir });
    expect(inRun.stdout.trim()).toBe(VERSION);
  });

  it('lists every command with its description, exit 0', async () => {
    const r = await bin(['--help'], { cwd: tmp.dir, env: { COLUMNS: '200' } });
    expect(r.code).toBe(0);
    for (const c of commands) expect(r.stdout).toContain(`payer-onboard ${c.command}`);
    // A description wraps at the terminal's width: compare word by word.
    const words = r.stdout.split(/\s+/).join(' ');
    for (const c of commands) expect(words).toContain(c.describe);
    expect(r.stdout).toContain('--version');
  });
});

describe('the top-level help written without yargs', () => {
  it('is what yargs itself lays out for the same commands', async () => {
    for (const width of [80, 100, 110]) {
      let parser = yargs([])
        .scriptName('payer-onboard')
        .usage('$0 <command> [options]\n\nOnboard payers in bulk onto the Payer Compliance and Payment-Details API.')
        .help()
        .version(CLI_VERSION)
        .wrap(width);
      for (const c of commands) parser = parser.command(c.command, c.describe);
      expect(topLevelHelp(width)).toBe(await parser.getHelp());
    }
  });
});

describe('a run without its connection says what to set, in one line', () => {
  const file = () => {
    tmp.write('payers.csv', payersCsv(['n-1']));
    return 'payers.csv';
  };

  it.each([
    [
      'nothing set',
      {},
      [],
      'talking to the API needs its address and your API key: set PAYER_API_BASE_URL and PAYER_API_KEY',
    ],
    ['a key but no address', { PAYER_API_KEY: 'k-123' }, [], 'no API address given: add --base-url https://'],
    ['an address but no key', {}, ['--base-url', 'https://api.example.com'], 'no API key found: set PAYER_API_KEY'],
  ])('%s', async (_, env: NodeJS.ProcessEnv, flags: string[], start) => {
    const r = await bin(['run', file(), ...flags], { cwd: tmp.dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr.startsWith(`payer-onboard: ${start}`), r.stderr).toBe(true);
    expect(r.stderr).toContain('--sandbox');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toContain('k-123');
  });

  it('a missing input file is named, with what to check', async () => {
    const r = await bin(['validate', 'payres.csv'], { cwd: tmp.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `payer-onboard: payres.csv: no such file (looked for ${join(tmp.dir, 'payres.csv')}): check its name and folder\n`,
    );
  });
});

describe('npm start', () => {
  it('exits 0 when the demo ran as designed, and says what a real run of its rows would exit with and why', async () => {
    const results = join(ROOT, 'payer-onboard-results');
    const before = new Set(safeList(results));
    const npm = spawn('npm', ['start', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    npm.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => npm.on('close', resolve));
    // The demo leaves its results where it ran, as a user's would; this test's are read, then removed.
    const made = safeList(results).filter((dir) => !before.has(dir));
    const reports = made.map((dir) => join(results, dir, 'report.html')).filter((path) => existsSync(path));
    const htmls = reports.map((path) => readFileSync(path, 'utf8'));
    const reruns = htmls.flatMap((html) => /<pre class="cmd" data-rerun><code>(.*?)<\/code>/s.exec(html)?.[1] ?? []);
    // The command as the report gives it, after the demo's sandbox is gone: it runs (the rows are still to fix).
    const again = reruns[0]
      ? await bin([...reruns[0].split(' ').slice(2), '--out', tmp.path('again')], { cwd: ROOT })
      : undefined;
    // The folder the demo points to at the end is there after it, serve's inbox with it.
    const pointed = /\bResults in (\S+)\/: /.exec(stderr)?.[1];
    const pointedThere = pointed !== undefined && existsSync(join(ROOT, pointed, 'serve-inbox', 'waiting'));
    for (const dir of made) rmSync(join(results, dir), { recursive: true });

    expect(code, stderr.slice(-2000)).toBe(0);
    expect(pointedThere, pointed).toBe(true);
    const invalid = /: \d+ ok, \d+ waiting, (\d+) invalid/.exec(stderr)?.[1];
    expect(Number(invalid)).toBeGreaterThan(0);
    expect(stderr).toContain(
      `\ndemo: a real run of these rows would exit 1: ${invalid} rows are invalid (on purpose: the example has mistakes ` +
        'to find), and 1 means "finished, some rows to fix": their failed-* files say what to fix. The demo ran as ' +
        'designed, so it exits 0.\n',
    );
    // The bank accounts refused before KYC are counted as such, never as a 500 that reads as an error.
    // A read of a new payer's stored accounts, sent alongside its registration while the gate is not yet known, may be
    // answered 404 (the payer is not there yet): how many depends on what was in flight.
    expect(stderr).toMatch(/ {2}requests: \d+ \(200: \d+(, 404: \d+)?, refused before KYC: \d+\), retries: \d+\n/);
    expect(stderr).not.toMatch(/\b500: /);
    // The report's command to run the failed rows again works after the demo: a sandbox of its own, not the demo's.
    expect(reruns.length).toBeGreaterThan(0);
    for (const rerun of reruns) {
      expect(rerun).toMatch(/^npx payer-onboard run \S+ .*--sandbox --rate 20\b/);
      expect(rerun).not.toMatch(/--base-url|127\.0\.0\.1|--state-dir/);
    }
    expect(again?.stderr).not.toContain('ABORTED');
    expect(again?.code, again?.stderr).toBe(1);
  }, 120_000);
});

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

describe('the language of the command line', () => {
  it("is English whatever the machine's language, yargs' own words included", async () => {
    let out = '';
    const stdout = new Writable({
      write(chunk, _encoding, done) {
        out += String(chunk);
        done();
      },
    });
    const before = process.env.LC_ALL;
    // yargs guesses the language from the environment when it starts.
    process.env.LC_ALL = 'de_DE.UTF-8';
    try {
      const code = await cli(['validate', '--help'], {
        stdout,
        stderr: new PassThrough(),
        env: {},
        cwd: process.cwd(),
        signal: new AbortController().signal,
      });
      expect(code).toBe(0);
    } finally {
      if (before === undefined) delete process.env.LC_ALL;
      else process.env.LC_ALL = before;
    }
    expect(out).toContain('Options:');
    expect(out).toContain('[required]');
    expect(out).not.toContain('Optionen');
  });
});
