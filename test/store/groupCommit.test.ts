import { expect, it } from 'vitest';
import { GroupCommit } from '../../src/store/GroupCommit.js';
import type { Statement } from '../../src/store/SqlJournal.js';
import { deferred } from '../helpers/waitFor.js';

const st = (sql: string): Statement => [sql, []];
const turn = () => new Promise((resolve) => setImmediate(resolve));

it('the batches asked while one commits go out together next, in order; a failed group is written again a batch a transaction', async () => {
  const commits: string[][] = [];
  const first = deferred();
  const group = new GroupCommit(async (statements) => {
    commits.push(statements.map(([sql]) => sql));
    if (commits.length === 1) await first.promise;
    if (statements.some(([sql]) => sql === 'bad')) throw new Error('refused');
  });
  const a = group.write([st('a')]);
  // The first group goes out once the caller lets the event loop turn; what comes meanwhile waits for the next.
  await turn();
  const bc = group.write([st('b'), st('c')]);
  const bad = group.write([st('bad')]);
  first.resolve();
  await a;
  await expect(bad).rejects.toThrow('refused');
  await bc;
  // b and c were refused with `bad` in their group, then committed on their own: a failure is its batch's alone.
  expect(commits).toEqual([['a'], ['b', 'c', 'bad'], ['b', 'c'], ['bad']]);
  await group.write([st('d')]);
  expect(commits.at(-1)).toEqual(['d']);
  await group.settled();
});
