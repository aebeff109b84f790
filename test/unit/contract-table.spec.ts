import { readFileSync } from 'node:fs';
import { CONTRACT_TABLE, referencePresent, SHARED, tableFromReference } from '../support/contract';

/** The repository's copy of the contract's facts is what the reference documents say (where they are beside the clone). */
describe('test/contract/operations.json', () => {
  (referencePresent() ? it : it.skip)(`matches ${SHARED}/reference (else: npm run contract:refresh)`, () => {
    expect(JSON.parse(readFileSync(CONTRACT_TABLE, 'utf8'))).toEqual(tableFromReference());
  });

  it('holds the contract and the real API', () => {
    const table = JSON.parse(readFileSync(CONTRACT_TABLE, 'utf8')) as { contract: unknown[]; wire: unknown[] };
    expect(table.contract.length).toBeGreaterThan(90);
    expect(table.wire.length).toBeGreaterThan(150);
  });
});
