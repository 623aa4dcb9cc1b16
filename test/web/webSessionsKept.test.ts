import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_FILE, SqliteStore } from '../../src/store/SqliteStore.js';
import { Audit } from '../../src/web/Audit.js';
import { hashPassword, WebAuth } from '../../src/web/WebAuth.js';
import { tempDir } from '../helpers/tempDir.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

describe('web sessions kept in the store', () => {
  it('never keeps a token, a password or a device cookie itself: reading the store signs nobody in', async () => {
    const store = SqliteStore.open(tmp.dir);
    const controls = store.controls('s');
    const auth = await WebAuth.create({
      password: 'right-password',
      web: store.web('s'),
      controls,
      settings: store.journal('s'),
      audit: new Audit(controls),
    });
    const shared = await auth.signIn({ name: '', password: 'right-password', address: 'a' });
    await controls.addUser({
      id: 'u1',
      name: 'Ada',
      role: 'admin',
      passwordHash: await hashPassword('ada-password-1'),
      createdAt: new Date().toISOString(),
      createdBy: 'test',
    });
    const named = await auth.signIn({ name: 'Ada', password: 'ada-password-1', address: 'a' });
    store.close();
    const bytes = readFileSync(join(tmp.dir, STORE_FILE)).toString('latin1');
    for (const result of [shared, named]) {
      if (typeof result !== 'object' || !('token' in result)) throw new Error('not signed in');
      expect(bytes).not.toContain(result.token);
      expect(bytes).not.toContain(result.device);
    }
    expect(bytes).not.toContain('right-password');
    expect(bytes).not.toContain('ada-password-1');
  });
});
