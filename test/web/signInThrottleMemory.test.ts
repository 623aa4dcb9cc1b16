import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/SqliteStore.js';
import { SignInThrottle } from '../../src/web/SignInThrottle.js';
import { tempDir } from '../helpers/tempDir.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

it('100,000 addresses, each guessing at a name of its own, leave the throttle within 20 MB of memory', async () => {
  const store = SqliteStore.open(tmp.dir);
  try {
    const throttle = await SignInThrottle.open(store.controls('s'), store.journal('s'), () => 1_000_000);
    // A full collection before each reading: what is left is what the throttle keeps.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heap = () => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const before = heap();
    for (let i = 0; i < 100_000; i++) {
      const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      expect(await throttle.count(throttle.keysOf(`name-${i}`, address, undefined))).toBe(0);
    }
    const grown = heap() - before;
    expect(grown).toBeLessThan(20 * 1024 * 1024);
    // Each address and name counted once, in the store.
    expect((await store.controls('s').tries(['address:10.1.134.159', 'account:name-99999'])).size).toBe(2);
  } finally {
    store.close();
  }
});
