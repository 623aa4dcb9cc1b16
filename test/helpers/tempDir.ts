import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A scratch folder per test, removed afterwards; `write` puts a file in it and returns its path. */
export function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'payer-onboard-test-'));
  return {
    dir,
    path: (name: string) => join(dir, name),
    write(name: string, content: string | Buffer): string {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
