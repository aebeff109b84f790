import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The contract and the wire-format reference that CI keeps beside the clone in ../shared. */
export const SHARED = join(__dirname, '..', '..', '..', 'shared');

/**
 * The facts of the contract the tests need (operations, paths, scopes), kept in the repository
 * (test/contract/operations.json) so that a clone on its own runs them. `npm run contract:refresh` writes it again
 * from ../shared/reference; test/unit/contract-table.spec.ts checks that it still matches when ../shared is there.
 */
export const CONTRACT_TABLE = join(__dirname, '..', 'contract', 'operations.json');

interface ContractTable {
  source: string;
  contract: ContractOperation[];
  wire: WireOperation[];
}

function table(): ContractTable {
  return JSON.parse(readFileSync(CONTRACT_TABLE, 'utf8')) as ContractTable;
}

export function referencePresent(): boolean {
  return existsSync(join(SHARED, 'reference', 'api-v2-reference.md'));
}

/** The table as the reference documents make it now. */
export function tableFromReference(): ContractTable {
  return {
    source: '../shared/reference/api-v2-reference.md and scormcloud-api-v2-schemas.md (npm run contract:refresh)',
    contract: extractContractOperations(readFileSync(join(SHARED, 'reference', 'api-v2-reference.md'), 'utf8')),
    wire: extractWireOperations(readFileSync(join(SHARED, 'reference', 'scormcloud-api-v2-schemas.md'), 'utf8')),
  };
}

export interface ContractOperation {
  operation: string;
  method: string;
  /** With `{param}` placeholders, relative to /api/v2. */
  path: string;
  /** Scopes from the contract's Scopes column; null for "basic only". */
  scopes: string[] | null;
}

/** Every operation of the contract with a method, a path and scopes. */
export function contractOperations(): ContractOperation[] {
  return table().contract;
}

/** From the contract's endpoint tables. */
function extractContractOperations(text: string): ContractOperation[] {
  const sets = new Map<string, string[]>();
  const legend = /Scope sets used below\.(.*)/.exec(text)?.[1] ?? '';
  for (const m of legend.matchAll(/\b([A-Z]{1,2}) = ([a-z:, ]+?)(?=;|\.|$)/g)) {
    sets.set(m[1], m[2].split(',').map((s) => s.trim()).filter(Boolean));
  }
  const ops: ContractOperation[] = [];
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // | op | METHOD /path | input | success | errors | scopes |
    if (cells.length === 8) {
      const mp = /^(GET|POST|PUT|DELETE|HEAD|PATCH) (\/\S+)$/.exec(cells[2]);
      if (!mp) continue;
      const scopeCell = cells[6];
      const scopes = scopeCell === 'basic only' ? null : (sets.get(scopeCell) ?? scopeCell.split(',').map((s) => s.trim()));
      ops.push({ operation: cells[1], method: mp[1], path: mp[2], scopes });
    }
    // | op | METHOD /path | notes |  (Other operations with a known path)
    if (cells.length === 5) {
      const mp = /^(GET|POST|PUT|DELETE|HEAD|PATCH) (\/\S+)$/.exec(cells[2]);
      if (!mp) continue;
      const scope = /scope ([a-z:]+)/.exec(cells[3]);
      if (scope) ops.push({ operation: cells[1], method: mp[1], path: mp[2], scopes: [scope[1]] });
    }
  }
  return ops;
}

export interface WireOperation {
  operationId: string;
  method: string;
  path: string;
  auth: string[];
}

/** Every operation of the real API. */
export function wireOperations(): WireOperation[] {
  return table().wire;
}

/** From the schemas reference, part B. */
function extractWireOperations(text: string): WireOperation[] {
  const ops: WireOperation[] = [];
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 10 || !/^(GET|POST|PUT|DELETE|HEAD|PATCH)$/.test(cells[1])) continue;
    ops.push({ method: cells[1], path: cells[2].replace(/`/g, ''), operationId: cells[3].replace(/ \(DEPRECATED\)/, ''), auth: cells[7].split(',') });
  }
  return ops;
}
