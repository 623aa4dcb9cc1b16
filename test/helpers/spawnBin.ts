import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** The real bin, as a user runs it (`npm test` builds it first). */
export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'payer-onboard.js');

export interface Spawned {
  child: ChildProcess;
  /** What it has written to stderr so far. */
  stderr(): string;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

export function spawnBin(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Spawned {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    // HOME is the test file's own (helpers/cleanUp.ts): the default state dir and the run locks are kept there.
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    },
  );
  return { child, done, stderr: () => stderr };
}
