/** `npm run contract:refresh`: writes test/contract/operations.json from ../shared/reference. */
import { writeFileSync } from 'node:fs';
import { CONTRACT_TABLE, referencePresent, SHARED, tableFromReference } from '../support/contract';

if (!referencePresent()) {
  process.stderr.write(`No reference documents in ${SHARED}/reference: nothing to refresh from.\n`);
  process.exit(1);
}
const table = tableFromReference();
writeFileSync(CONTRACT_TABLE, JSON.stringify(table, null, 1) + '\n');
process.stdout.write(`${CONTRACT_TABLE}: ${table.contract.length} contract operations, ${table.wire.length} wire operations\n`);
