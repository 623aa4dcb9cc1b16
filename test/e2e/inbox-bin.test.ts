import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY, harness, payersCsv } from '../helpers/runHarness.js';
import { inboxAt } from '../helpers/inboxFixtures.js';
import { spawnBin } from '../helpers/spawnBin.js';
import { waitFor } from '../helpers/waitFor.js';

// `payer-onboard inbox` as cron and systemd start it: the real bin (built by `npm test` first).
let h: Awaited<ReturnType<typeof harness>>;
let inbox: ReturnType<typeof inboxAt>;
beforeEach(async () => {
  h = await harness();
  inbox = inboxAt(h.tmp.path('inbox'));
});
afterEach(async () => {
  await h.close();
});

const env = () => ({ PAYER_API_KEY: API_KEY, PAYER_API_BASE_URL: h.sandbox.url, PAYER_ONBOARD_RATE: '0' });

describe('payer-onboard inbox (the bin)', () => {
  it('prints nothing at all and exits 0 when there is nothing to do, even with --json', async () => {
    for (const args of [
      ['inbox', 'inbox'],
      ['inbox', 'inbox', '--json', '--settle', '1'],
    ]) {
      const r = await spawnBin(args, { cwd: h.tmp.dir, env: env() }).done;
      expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    }
    expect(inbox.list('')).toEqual(['incoming', 'processing', 'done', 'failed', 'results', 'waiting'].sort());
    expect(existsSync(inbox.path('lock'))).toBe(false);
  });

  it('lets one process at a time work an inbox: a second one exits 2 naming the holder', async () => {
    const first = spawnBin(['inbox', 'inbox', '--watch', '--settle', '0.2'], { cwd: h.tmp.dir, env: env() });
    await waitFor(() => existsSync(inbox.path('lock')), 'the first inbox to take its lock');
    const second = await spawnBin(['inbox', 'inbox'], { cwd: h.tmp.dir, env: env() }).done;
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`another inbox is using ${inbox.root}: pid ${first.child.pid} on ${hostname()}`);
    expect(second.stdout).toBe('');

    // The watcher still works its folder, and SIGTERM ends it cleanly, lock released.
    inbox.drop('late.csv', payersCsv(['l-1']));
    await waitFor(() => inbox.list('done').includes('late.csv'), 'late.csv in done/');
    first.child.kill('SIGTERM');
    const ended = await first.done;
    expect(ended.code).toBe(0);
    expect(ended.stderr).toContain('inbox: late.csv: exit 0, -> done/late.csv');
    expect(existsSync(inbox.path('lock'))).toBe(false);
  });

  it('takes over the lock of a process that died, and prints one --json line per file', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']);
    writeFileSync(
      inbox.path('lock'),
      JSON.stringify({ pid: dead.pid, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z' }),
    );
    inbox.drop('one.csv', payersCsv(['o-1']), 120);
    inbox.drop('two.csv', payersCsv(['o-2'], { 'o-2': { email: 'x' } }), 60);
    const r = await spawnBin(['inbox', 'inbox', '--json', '--settle', '1'], { cwd: h.tmp.dir, env: env() }).done;
    expect(r.code).toBe(1);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map(
        (l) => JSON.parse(l) as { file: string; folder: string; exitCode: number; summary: { rows: { ok: number } } },
      );
    expect(lines.map((l) => [l.file, l.folder, l.exitCode, l.summary.rows.ok])).toEqual([
      ['one.csv', 'done', 0, 1],
      ['two.csv', 'failed', 1, 0],
    ]);
    expect(existsSync(inbox.path('lock'))).toBe(false);
  });

  it('refuses --out (each file gets its own results folder) and a missing folder, exit 2', async () => {
    const out = await spawnBin(['inbox', 'inbox', '--out', 'x'], { cwd: h.tmp.dir, env: env() }).done;
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('Unknown argument: out');
    const missing = await spawnBin(['inbox', 'nowhere'], { cwd: h.tmp.dir, env: env() }).done;
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('inbox: nowhere is not a folder');
  });
});
