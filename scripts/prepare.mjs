// npm's `prepare`: builds dist/ unless it was built from exactly these sources. npm runs `prepare` on `npm ci`, and
// again on the first `npx payer-onboard` after it: npx runs a checkout's own bin by linking the checkout into its
// cache, and a linked package is prepared (npm's libnpmexec and arborist do so for every link). That second build
// took 6 to 25 s behind npx's spinner for nothing; now it takes a hash of the sources. The hash covers what the build
// reads: src/, the bundler script, the TypeScript configs and the package and lock files (the dependencies bundled).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = [
  'src',
  'scripts/bundle.mjs',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
];
// What the bin and the library load: a build that stopped before them left no stamp, but check anyway.
const OUTPUTS = ['dist/index.js', 'dist/bundle/bin.js'];
const STAMP = join(root, 'dist', '.sources-sha256');

function files(path) {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath ?? entry.path, entry.name)));
}

function sourcesHash() {
  const hash = createHash('sha256');
  for (const file of SOURCES.flatMap(files).sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const hash = sourcesHash();
const built = existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === hash;
if (built && OUTPUTS.every((output) => existsSync(join(root, output)))) {
  console.error('payer-onboard: dist/ is built from these sources already');
} else {
  // The npm on PATH, not npm_execpath: under npx that names npx's own script, which would read `run` as a package.
  const build = spawnSync('npm', ['run', 'build'], {
    cwd: root,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
  writeFileSync(STAMP, `${hash}\n`);
}
