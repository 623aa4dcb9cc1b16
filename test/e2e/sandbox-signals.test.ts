import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, spawnBin, type Spawned } from '../helpers/spawnBin.js';
import { tempDir } from '../helpers/tempDir.js';
import { waitFor } from '../helpers/waitFor.js';

// A sandbox started in the background is stopped by its own process id, at once and in its own words: it has no
// calls to finish and no results to write, so the run's message on a signal would mislead.

let tmp: ReturnType<typeof tempDir>;
let started: Spawned | undefined;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  if (started && started.child.exitCode === null) started.child.kill('SIGKILL');
  started = undefined;
  tmp.remove();
});

async function listening(spawned: Spawned): Promise<string> {
  let out = '';
  return new Promise<string>((resolve, reject) => {
    spawned.child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    void spawned.done.then((d) => reject(new Error(`exited ${d.code} before listening: ${d.stderr}`)));
  });
}

describe('payer-onboard sandbox: signals and --pid-file', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: closes at once with its own words, exit 0, and removes its pid file`, async () => {
      const pidFile = tmp.path('sandbox.pid');
      started = spawnBin(['sandbox', '--port', '0', '--api-key', 'k', '--pid-file', pidFile], { cwd: tmp.dir });
      const line = await listening(started);
      expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
      // The id in the file is the server's: the process that listens, whatever started it.
      expect(readFileSync(pidFile, 'utf8')).toBe(`${started.child.pid}\n`);

      const sentAt = Date.now();
      process.kill(Number(readFileSync(pidFile, 'utf8')), signal);
      const ended = await started.done;
      expect(Date.now() - sentAt).toBeLessThan(5000);
      expect(ended.code).toBe(0);
      expect(ended.stderr).toBe(
        `sandbox: stats at ${line.slice('listening on '.length)}/__sandbox/stats; Ctrl-C to stop\n\nsandbox: ${signal}, closing\n`,
      );
      await waitFor(() => !existsSync(pidFile), 'the pid file removed');
    });
  }

  it('started through npx (npm, a shell, then the server), it closes once they are gone: `kill $!` ends it', async () => {
    const pidFile = tmp.path('sandbox.pid');
    // What npx runs the bin in: a shell that waits for it, and that a SIGTERM ends without passing it on.
    const shell = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" sandbox --port 0 --pid-file "${pidFile}"; true`], {
      cwd: tmp.dir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, npm_command: 'exec' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    shell.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // Closed once every holder of its pipes is gone: the shell and the server.
    const closed = new Promise<void>((resolve) => shell.once('close', () => resolve()));
    await waitFor(() => existsSync(pidFile), 'the pid file');
    const server = Number(readFileSync(pidFile, 'utf8'));
    try {
      shell.kill('SIGTERM');
      await closed;
      expect(stderr).toMatch(/\nsandbox: the npx that started it has ended, closing\n$/);
      expect(existsSync(pidFile)).toBe(false);
    } finally {
      if (existsSync(pidFile)) process.kill(server, 'SIGKILL');
    }
  });

  it('a pid file it cannot write is a usage error naming the flag, and nothing is left listening', async () => {
    started = spawnBin(['sandbox', '--port', '0', '--pid-file', tmp.path('no/such/dir/sandbox.pid')], { cwd: tmp.dir });
    const ended = await started.done;
    expect(ended.code).toBe(2);
    expect(ended.stdout).toBe('');
    expect(ended.stderr).toBe(
      `payer-onboard: --pid-file: cannot write ${tmp.path('no/such/dir/sandbox.pid')} (ENOENT)\n`,
    );
  });
});
