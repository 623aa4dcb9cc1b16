import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's own folder, the nearest one up from this module holding package.json: the same folder whether
 * this runs from src/ (the tests), dist/ (the library) or dist/bundle/ (the bin, where every module is in one of
 * a few files and a path relative to one of them would point elsewhere).
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('payer-onboard: its package.json is missing');
    dir = up;
  }
  return dir;
}
