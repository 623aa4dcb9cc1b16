import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/SqliteStore.js';
import { Mappings } from '../../src/inbox/Mappings.js';
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

describe('Mappings: saved by the set of column names in the store, found by the same columns in any order', () => {
  it('saves the JSON --map reads and the date format, and finds them for the same columns in any order and spelling, after a restart too', async () => {
    const first = SqliteStore.open(tmp.path('state'));
    await new Mappings(first.web('s')).save(HEADER, { columns: { Type: 'beneficiaryType' }, dateFormat: 'DD/MM/YYYY' });
    first.close();
    const store = SqliteStore.open(tmp.path('state'));
    const mappings = new Mappings(store.web('s'));
    const saved = { columns: { Type: 'beneficiaryType' }, dateFormat: 'DD/MM/YYYY' };
    expect(await mappings.get([...HEADER])).toEqual(saved);
    expect(await mappings.get([...HEADER].reverse())).toEqual(saved);
    // Spelt another way, the column is named as this header spells it: the page renames it by that spelling.
    const respelt = ['client user id', 'E-Mail', 'FIRST_NAME', 'last name', 'TYPE', 'date of birth', 'notes'];
    expect(await mappings.get(respelt)).toEqual({ columns: { TYPE: 'beneficiaryType' }, dateFormat: 'DD/MM/YYYY' });
    // A failed file of those columns, fed back, is read as its file was.
    expect(await mappings.get([...HEADER, 'error', 'completedSteps'])).toEqual(saved);
    // A column more or less is other columns.
    expect(await mappings.get(HEADER.slice(1))).toBeUndefined();
    expect(await mappings.get([...HEADER, 'Company'])).toBeUndefined();
    // Another service and key's page has mappings of its own.
    expect(await new Mappings(store.web('other')).get(HEADER)).toBeUndefined();
    store.close();
  });

  it('a saved mapping --map would refuse (a field renamed since) is not applied; a date format --date-format refuses is dropped', async () => {
    const store = SqliteStore.open(tmp.path('state'));
    const web = store.web('s');
    const mappings = new Mappings(web);
    await mappings.save(HEADER, { columns: { Type: 'kindOfPayer' } });
    expect(await mappings.get(HEADER)).toBeUndefined();
    await web.putMapping(
      Mappings.keyOf(HEADER),
      JSON.stringify({ columns: { Type: 'beneficiaryType' }, dateFormat: 'DD/MM' }),
    );
    expect(await mappings.get(HEADER)).toEqual({ columns: { Type: 'beneficiaryType' } });
    store.close();
  });

  it('a mapping an earlier version saved (the columns alone, by the header in its order) is still found for that header', async () => {
    const store = SqliteStore.open(tmp.path('state'));
    const web = store.web('s');
    const earlierKey = createHash('sha256').update(JSON.stringify(HEADER)).digest('hex').slice(0, 32);
    await web.putMapping(earlierKey, JSON.stringify({ Type: 'beneficiaryType' }));
    expect(await new Mappings(web).get(HEADER)).toEqual({ columns: { Type: 'beneficiaryType' } });
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
