import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { extname, join } from 'node:path';

/** What a look at one file in incoming/ saw. */
export interface FileLook {
  name: string;
  size: number;
  mtimeMs: number;
}

/**
 * Decides which files in incoming/ have stopped changing, so a half-copied upload is never read.
 * A file is settled when its size and mtime are the same as at the previous look and either
 *  - its mtime is at least `settleMs` old (every write moves mtime; tools that keep the source's mtime set it
 *    after the last write), so a cron run need not wait for a file that was finished long ago, or
 *  - this process has seen it unchanged for `settleMs` (covers an mtime in the future: clock skew on a share).
 * Pure: the caller passes the looks and the time.
 */
export class SettleTracker {
  private readonly seen = new Map<string, FileLook & { since: number }>();

  constructor(private readonly settleMs: number) {}

  /** Records this look at every file and returns the names of the settled ones, oldest mtime first. */
  update(looks: FileLook[], now: number): string[] {
    const settled: FileLook[] = [];
    const present = new Set<string>();
    for (const look of looks) {
      present.add(look.name);
      const before = this.seen.get(look.name);
      const unchanged = before !== undefined && before.size === look.size && before.mtimeMs === look.mtimeMs;
      const since = unchanged ? before.since : now;
      this.seen.set(look.name, { ...look, since });
      const quietOnDisk = now - look.mtimeMs >= this.settleMs;
      const quietWhileWatched = now - since >= this.settleMs;
      // The first look at a file has nothing to compare the size with: only an old mtime can settle it then.
      if ((unchanged || before === undefined) && (quietOnDisk || (unchanged && quietWhileWatched))) settled.push(look);
    }
    for (const name of this.seen.keys()) if (!present.has(name)) this.seen.delete(name);
    return settled.sort((a, b) => a.mtimeMs - b.mtimeMs || a.name.localeCompare(b.name)).map((f) => f.name);
  }

  /** Forget a file once it has been taken (a new file of the same name starts over). */
  forget(name: string): void {
    this.seen.delete(name);
  }
}

const FOLDERS = ['incoming', 'processing', 'done', 'failed', 'results', 'waiting'] as const;
type Folder = (typeof FOLDERS)[number];

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
  const target = freeName(toDir, name, suffix);
  renameSync(from, target);
  return target;
}

/** Copies a file into a folder, never over a file already there (named as `moveInto` names it). */
export function copyInto(from: string, toDir: string, name: string, suffix: string): string {
  const target = freeName(toDir, name, suffix);
  copyFileSync(from, target);
  return target;
}

function freeName(dir: string, name: string, suffix: string): string {
  const target = join(dir, name);
  if (!existsSync(target)) return target;
  const ext = extname(name);
  return join(dir, `${name.slice(0, name.length - ext.length)}-${suffix}${ext}`);
}

/** `failed/<file>.error.txt` beside a file: the person who dropped it reads why without opening a terminal. */
export function writeNote(movedTo: string, lines: string[]): void {
  // Line 2 is the deliberate blank after the headline; other empty entries are optional lines left out.
  // Only its owner reads it, like every file the tool writes (it names files and rows, never their values).
  const path = `${movedTo}.error.txt`;
  writeFileSync(path, `${lines.filter((l, i) => l !== '' || i === 1).join('\n')}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}
