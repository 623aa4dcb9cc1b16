import { existsSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { FileLook } from './SettleTracker.js';

export const FOLDERS = ['incoming', 'processing', 'done', 'failed', 'results'] as const;
export type Folder = (typeof FOLDERS)[number];

export type InboxPaths = Record<Folder, string> & { root: string };

/** The inbox's folders, created if missing (with the default mode: the drop folder is shared with people). */
export function inboxPaths(root: string): InboxPaths {
  const paths = { root } as InboxPaths;
  for (const folder of FOLDERS) {
    paths[folder] = join(root, folder);
    mkdirSync(paths[folder], { recursive: true });
  }
  return paths;
}

/**
 * Regular files of a folder, with size and mtime. Hidden files and office lock files (`~$x.xlsx`) are
 * skipped: uploaders write to those names first and rename when done.
 */
export function listFiles(dir: string): FileLook[] {
  const looks: FileLook[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile() || entry.name.startsWith('.') || entry.name.startsWith('~$')) continue;
    try {
      const stat = statSync(join(dir, entry.name));
      looks.push({ name: entry.name, size: stat.size, mtimeMs: stat.mtimeMs });
    } catch {
      // gone between readdir and stat: someone took it back; not ours to report
    }
  }
  return looks;
}

/** Files of a folder, oldest first: the order they are processed in. */
export function oldestFirst(dir: string): string[] {
  return listFiles(dir)
    .sort((a, b) => a.mtimeMs - b.mtimeMs || a.name.localeCompare(b.name))
    .map((f) => f.name);
}

/**
 * Moves a file into a folder by rename (atomic on one filesystem). A name already there is never overwritten:
 * the same file name dropped again next week becomes `payers-<run id>.csv`, keeping its extension.
 */
export function moveInto(from: string, toDir: string, name: string, suffix: string): string {
  let target = join(toDir, name);
  if (existsSync(target)) {
    const ext = extname(name);
    target = join(toDir, `${name.slice(0, name.length - ext.length)}-${suffix}${ext}`);
  }
  renameSync(from, target);
  return target;
}
