import { readdirSync, readFileSync } from 'node:fs';

/** A process's state letter and parent, from Linux's /proc; undefined once it is gone. */
function stat(pid: number): { state: string; parent: number } | undefined {
  try {
    // The command's name (in parentheses) may hold spaces: the fields after its closing one are fixed.
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, parent] = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: state!, parent: Number(parent) };
  } catch {
    return undefined;
  }
}

/** Whether a process still runs (a zombie, ended and not yet reaped, does not). */
export function running(pid: number): boolean {
  const found = stat(pid);
  return found !== undefined && found.state !== 'Z';
}

/** The processes `parent` started to read or check an uploaded file (dist/bundle/checkChild.js) that still run. */
export function checkChildren(parent: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      if (stat(pid)?.parent !== parent || !running(pid)) return false;
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('checkChild.js');
      } catch {
        return false;
      }
    });
}
