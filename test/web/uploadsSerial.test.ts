import { describe, expect, it } from 'vitest';
import type { WebTables } from '../../src/store/Store.js';
import type { Mappings } from '../../src/inbox/Mappings.js';
import { Uploads } from '../../src/web/Uploads.js';
import { deferred } from '../helpers/waitFor.js';

describe('Uploads.serial', () => {
  it('runs the work on one upload one after another, a failed one not holding up the next; other uploads not waiting', async () => {
    const uploads = new Uploads('/nonexistent/.web/uploads', '/nonexistent/incoming', {} as Mappings, {} as WebTables);
    const order: string[] = [];
    const gate = deferred();
    const first = uploads.serial('a', async () => {
      await gate.promise;
      order.push('a1');
      throw new Error('a1 failed');
    });
    const second = uploads.serial('a', async () => order.push('a2'));
    await uploads.serial('b', async () => order.push('b1'));
    expect(order).toEqual(['b1']);
    gate.resolve();
    await expect(first).rejects.toThrow('a1 failed');
    await second;
    expect(order).toEqual(['b1', 'a1', 'a2']);
  });
});
