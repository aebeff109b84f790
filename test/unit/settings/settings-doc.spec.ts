/** docs/settings.md says what LCDS does with every setting id: one row per catalogue id, no other ids. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTINGS } from '../../../src/modules/settings/setting-catalogue';

describe('docs/settings.md', () => {
  const doc = readFileSync(join(__dirname, '../../../docs/settings.md'), 'utf8');
  /** The ids of the table's rows (the first cell, in backquotes). */
  const rows = [...doc.matchAll(/^\| `([A-Za-z0-9_]+)` \|(.*)\|$/gm)].map((m) => ({ id: m[1], cells: m[2].split(/(?<!\\)\|/).map((c) => c.trim()) }));

  it('has one row for each of the catalogue\'s ids, and no other', () => {
    const ids = rows.map((r) => r.id);
    expect(ids.length).toBe(SETTINGS.length);
    expect([...ids].sort()).toEqual(SETTINGS.map((s) => s.id).sort());
  });

  it('gives each row a description and a status', () => {
    for (const { id, cells } of rows) {
      expect([id, cells.length]).toEqual([id, 2]);
      expect([id, cells[0].length > 0]).toEqual([id, true]);
      expect([id, /^(honoured: `test\/[^`]+spec\.ts` ".+"|stored only: .+|not applicable: .+)$/.test(cells[1])]).toEqual([id, true]);
    }
  });

  it('names, for each honoured setting, a test that exists', () => {
    for (const { id, cells } of rows) {
      const m = /^honoured: `([^`]+)` "(.+)"$/.exec(cells[1]);
      if (!m) continue;
      const source = readFileSync(join(__dirname, '../../..', m[1]), 'utf8');
      expect([id, source.includes(m[2].replace(/\\\|/g, '|'))]).toEqual([id, true]);
    }
  });
});
