import { statSync } from 'node:fs';
import { join } from 'node:path';
import { oldestFirst } from '../inbox/folders.js';
import { payerKeyOf } from '../journal/RowJournal.js';
import { readStatusInputs } from '../status/statusInputs.js';

/** A payer with rows in a file of waiting/: the file, and the payer's id as its rows spell it. */
export interface WaitingPayer {
  file: string;
  clientUserId: string;
}

/**
 * Which payers have rows in the inbox's waiting/ files, by the journal's key of each: the rows an event can move.
 * A file is read again only when its size or mtime changed (a run of it writes its new pending file over it).
 */
export class WaitingRows {
  private readonly files = new Map<string, { stamp: string; ids: string[] }>();

  constructor(
    private readonly folder: string,
    private readonly unreadable: (file: string, why: string) => void = () => {},
  ) {}

  async byPayer(): Promise<Map<string, WaitingPayer[]>> {
    const index = new Map<string, WaitingPayer[]>();
    const names = oldestFirst(this.folder);
    for (const name of this.files.keys()) if (!names.includes(name)) this.files.delete(name);
    for (const file of names) {
      for (const clientUserId of await this.idsOf(file)) {
        const key = payerKeyOf(clientUserId);
        const list = index.get(key) ?? [];
        if (!list.some((p) => p.file === file)) list.push({ file, clientUserId });
        index.set(key, list);
      }
    }
    return index;
  }

  private async idsOf(file: string): Promise<string[]> {
    const path = join(this.folder, file);
    let stamp: string;
    try {
      const stat = statSync(path);
      stamp = `${stat.size}:${stat.mtimeMs}`;
    } catch {
      return []; // gone since the folder was listed
    }
    const cached = this.files.get(file);
    if (cached?.stamp === stamp) return cached.ids;
    let ids: string[];
    try {
      const { targets } = await readStatusInputs([path], { reading: {} });
      ids = targets.map((t) => t.clientUserId);
    } catch (error) {
      // A file the tool cannot read moves no payer by event; its recheck reports it (and moves it to failed/).
      this.unreadable(file, (error as Error).message);
      ids = [];
    }
    this.files.set(file, { stamp, ids });
    return ids;
  }
}
