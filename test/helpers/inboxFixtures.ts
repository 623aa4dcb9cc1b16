import { existsSync, mkdirSync, readdirSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** An inbox folder inside a test's scratch dir, with helpers to drop files and look at the folders. */
export function inboxAt(root: string) {
  mkdirSync(join(root, 'incoming'), { recursive: true });
  return {
    root,
    /** Writes a file into a folder; `ageSeconds` back-dates its mtime, as if it had been dropped a while ago. */
    drop(name: string, content: string, ageSeconds = 60, folder = 'incoming'): string {
      mkdirSync(join(root, folder), { recursive: true });
      const path = join(root, folder, name);
      // Written and dated beside the folder, then moved in whole: a serve that takes files at once must not find it
      // half-made (or take it before its date is set).
      const making = join(root, `.${name}.making`);
      writeFileSync(making, content);
      const at = new Date(Date.now() - ageSeconds * 1000);
      utimesSync(making, at, at);
      renameSync(making, path);
      return path;
    },
    list(folder: string): string[] {
      const dir = join(root, folder);
      return existsSync(dir) ? readdirSync(dir).sort() : [];
    },
    path: (...parts: string[]) => join(root, ...parts),
  };
}
