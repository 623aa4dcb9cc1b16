import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tempDir.js';

// npm runs `prepare` on `npm ci` and again on the first `npx payer-onboard` after it (npx links the checkout into its
// cache, and a link is prepared): the second must not build again. Here scripts/prepare.mjs runs in a project of its
// own whose build only counts its runs.

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'prepare.mjs');

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
  mkdirSync(tmp.path('scripts'));
  copyFileSync(SCRIPT, tmp.path('scripts/prepare.mjs'));
  mkdirSync(tmp.path('src'));
  tmp.write('src/a.ts', 'export const a = 1;\n');
  const build =
    "const fs=require('fs');fs.mkdirSync('dist/bundle',{recursive:true});fs.writeFileSync('dist/index.js','');" +
    "fs.writeFileSync('dist/bundle/bin.js','');fs.appendFileSync('builds','.')";
  tmp.write('package.json', JSON.stringify({ name: 'p', private: true, scripts: { build: `node -e "${build}"` } }));
});
afterEach(() => {
  tmp.remove();
});

function prepare(): { stderr: string; builds: string } {
  const ran = spawnSync(process.execPath, ['scripts/prepare.mjs'], { cwd: tmp.dir, encoding: 'utf8' });
  expect(ran.status, ran.stderr).toBe(0);
  const builds = existsSync(tmp.path('builds')) ? readFileSync(tmp.path('builds'), 'utf8') : '';
  return { stderr: ran.stderr, builds };
}

describe('npm prepare', () => {
  it('builds once, not again while the sources are the ones dist/ was built from, and again once one changes', () => {
    expect(prepare().builds).toBe('.');
    const second = prepare();
    expect(second.builds).toBe('.');
    expect(second.stderr).toBe('payer-onboard: dist/ is built from these sources already\n');

    writeFileSync(tmp.path('src/a.ts'), 'export const a = 2;\n');
    expect(prepare().builds).toBe('..');
    expect(prepare().builds).toBe('..');
  });
});
