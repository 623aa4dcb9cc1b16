import { expect, it } from 'vitest';
import { GroupCommit } from '../../src/store/GroupCommit.js';
import type { Statement } from '../../src/store/SqlJournal.js';
import { deferred } from '../helpers/waitFor.js';

const st = (sql: string): Statement => [sql, []];

it('the batches asked while one commits go out together next, in order; a failed group fails its own callers only', async () => {
  const commits: string[][] = [];
  const gates = [deferred(), deferred(), deferred()];
  let n = 0;
  const group = new GroupCommit(async (statements) => {
    const gate = gates[n++]!;
    commits.push(statements.map(([sql]) => sql));
    await gate.promise;
    if (statements.some(([sql]) => sql === 'bad')) throw new Error('refused');
  });
  const first = group.write([st('a')]);
  // The first group goes out once the caller lets the event loop turn.
  await new Promise((resolve) => setImmediate(resolve));
  const second = group.write([st('b'), st('c')]);
  const third = group.write([st('bad')]);
  gates[0]!.resolve();
  await first;
  await new Promise((resolve) => setImmediate(resolve));
  expect(commits).toEqual([['a'], ['b', 'c', 'bad']]);
  const fourth = group.write([st('d')]);
  gates[1]!.resolve();
  await expect(second).rejects.toThrow('refused');
  await expect(third).rejects.toThrow('refused');
  gates[2]!.resolve();
  await fourth;
  expect(commits).toEqual([['a'], ['b', 'c', 'bad'], ['d']]);
  await group.settled();
});
