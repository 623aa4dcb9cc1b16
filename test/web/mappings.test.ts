import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/SqliteStore.js';
import { Mappings } from '../../src/web/Mappings.js';
import { mappingView, postedMapping } from '../../src/web/mapSection.js';
import type { UploadTable } from '../../src/web/uploadTable.js';
import { tempDir } from '../helpers/tempDir.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

const HEADER = ['clientUserId', 'email', 'firstName', 'lastName', 'Type', 'dateOfBirth', 'Notes'];
const TABLE: UploadTable = {
  header: [...HEADER, 'addressLine1', 'city', 'state', 'postcode', 'country', 'nationality', 'phone', 'ssn'],
  rows: [
    { line: 3, texts: ['p-1', 'a@example.com', 'Ada', 'L', 'individual', '1985-12-10', 'vip'] },
    { line: 4, texts: ['p-2', 'b@example.com', 'Bo', 'L', 'business', '1985-12-10', ''] },
  ],
};

describe('Mappings: saved by header in the store, found by the same header only', () => {
  it('saves the JSON --map reads, and finds it for the same columns in the same order, after a restart too', async () => {
    const first = SqliteStore.open(tmp.path('state'));
    await new Mappings(first.web('s')).save(HEADER, { Type: 'beneficiaryType' });
    first.close();
    const store = SqliteStore.open(tmp.path('state'));
    const mappings = new Mappings(store.web('s'));
    expect(await mappings.get([...HEADER])).toEqual({ Type: 'beneficiaryType' });
    expect(await mappings.get(HEADER.slice(1))).toBeUndefined();
    expect(await mappings.get([...HEADER].reverse())).toBeUndefined();
    // Another service and key's page has mappings of its own.
    expect(await new Mappings(store.web('other')).get(HEADER)).toBeUndefined();
    store.close();
  });

  it('a saved mapping --map would refuse (a field renamed since) is not applied', async () => {
    const store = SqliteStore.open(tmp.path('state'));
    const mappings = new Mappings(store.web('s'));
    await mappings.save(HEADER, { Type: 'kindOfPayer' });
    expect(await mappings.get(HEADER)).toBeUndefined();
    store.close();
  });
});

describe('mappingView: the Map step', () => {
  it('shows each column beside its field; a pick list for those not understood, the guess preselected', () => {
    const view = mappingView(TABLE, {});
    // Type's values name its field: the check reads it so, and nothing required is asked for.
    expect(view.missing).toEqual([]);
    expect(view.unknown).toEqual(['Type', 'Notes']);
    const type = view.columns.find((c) => c.column === 'Type');
    expect(type).toMatchObject({
      index: 4,
      column: 'Type',
      pick: true,
      chosen: 'beneficiaryType',
      field: 'beneficiaryType',
    });
    expect(type?.words).toBeDefined();
    expect(view.columns.find((c) => c.column === 'Notes')).toEqual({ index: 6, column: 'Notes', pick: true });
    expect(view.columns[1]).toEqual({ index: 1, column: 'email', pick: false, field: 'email' });
  });

  it('with the mapping, the column feeds its field and nothing required is missing', () => {
    const view = mappingView(TABLE, { Type: 'beneficiaryType' });
    expect(view.missing).toEqual([]);
    expect(view.columns[4]).toMatchObject({ column: 'Type', pick: true, field: 'beneficiaryType' });
  });
});

describe('postedMapping: the Map form as --map JSON', () => {
  it('takes the pick lists by column, a required field given its column over that column’s list, and no unknown field', () => {
    expect(postedMapping(TABLE, { 'col:4': 'beneficiaryType', 'col:6': '', _csrf: 'x' })).toEqual({
      Type: 'beneficiaryType',
    });
    expect(postedMapping(TABLE, { 'col:4': '', 'col:6': 'phone', 'need:beneficiaryType': 'Type' })).toEqual({
      Notes: 'phone',
      Type: 'beneficiaryType',
    });
    expect(postedMapping(TABLE, { 'col:4': 'rm -rf', 'col:99': 'email', 'need:nope': 'Type' })).toEqual({});
  });
});
