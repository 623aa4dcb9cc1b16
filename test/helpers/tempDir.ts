import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Scratch folders made in this test file and not removed yet. */
const made = new Set<string>();

/** A scratch folder per test, removed afterwards; `write` puts a file in it and returns its path. */
export function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'payer-onboard-test-'));
  made.add(dir);
  return {
    dir,
    path: (name: string) => join(dir, name),
    write(name: string, content: string | Buffer): string {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
      made.delete(dir);
    },
  };
}

/** Removes what a test file left (a test that failed before its own clean-up, or one that forgot it). */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
