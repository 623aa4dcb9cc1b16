import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const SCRATCH = join(ROOT, 'bench', 'scratch');
// BENCH_BIN: another build's bin (an earlier commit's, for a before-and-after figure).
const BIN = process.env.BENCH_BIN ?? join(ROOT, 'bin', 'payer-onboard.js');
const PEAK = fileURLToPath(new URL('./peak.js', import.meta.url));

export interface ProcessFigures {
  exitCode: number | null;
  wallMs: number;
  maxRssMb: number;
  cpuMs: number;
  stdout: string;
  stderr: string;
}

export const HTTP_FLOOR = fileURLToPath(new URL('./httpFloor.js', import.meta.url));

/** The node flags the bin's `#!` line gives it (what runs it directly, or through npx, starts with). */
const BIN_FLAGS =
  /^#!.*?\bnode\b(.*)$/m
    .exec(readFileSync(BIN, 'utf8').split('\n', 1)[0] ?? '')?.[1]
    ?.trim()
    .split(/\s+/)
    .filter(Boolean) ?? [];

/** Runs the real bin (`node bin/payer-onboard.js ...`) as a user would, measuring its own peak RSS and CPU. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  onSpawn?: (pid: number) => void,
  nodeArgs: string[] = [],
): Promise<ProcessFigures> {
  return runNode(BIN, args, env, onSpawn, [...BIN_FLAGS, ...nodeArgs]);
}

/** Runs `node ...nodeArgs script ...args` in its own process, measuring its own peak RSS and CPU. */
export async function runNode(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  onSpawn?: (pid: number) => void,
  nodeArgs: string[] = [],
): Promise<ProcessFigures> {
  const peakFile = join(SCRATCH, `peak-${process.pid}-${Date.now()}.json`);
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, '--import', PEAK, script, ...args], {
    cwd: SCRATCH,
    env: { ...process.env, ...env, BENCH_PEAK_FILE: peakFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid !== undefined) onSpawn?.(child.pid);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const wallMs = performance.now() - started;
  if (!existsSync(peakFile))
    throw new Error(`${script} ${args[0]} left no figures (exit ${exitCode}): ${stderr.slice(-2000)}`);
  const peak = JSON.parse(readFileSync(peakFile, 'utf8')) as {
    maxRssKb: number;
    cpuUserMs: number;
    cpuSystemMs: number;
  };
  rmSync(peakFile, { force: true });
  return { exitCode, wallMs, maxRssMb: peak.maxRssKb / 1024, cpuMs: peak.cpuUserMs + peak.cpuSystemMs, stdout, stderr };
}

/** The summary `run --json` prints. */
export interface RunSummary {
  durationMs: number;
  rows: { total: number; ok: number; waiting?: number; invalid: number; failed: number; skipped: number };
  requests: { total: number; byStatus: Record<string, number>; retries: number };
  exitCode: number;
}

export function parseSummary(figures: ProcessFigures): RunSummary {
  try {
    return JSON.parse(figures.stdout) as RunSummary;
  } catch {
    throw new Error(`no JSON summary on stdout (exit ${figures.exitCode}): ${figures.stderr.slice(-2000)}`);
  }
}
