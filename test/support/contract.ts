import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Reads the contract and the wire-format reference that CI keeps beside the clone in ../shared. */
export const SHARED = join(__dirname, '..', '..', '..', 'shared');

export interface ContractOperation {
  operation: string;
  method: string;
  /** With `{param}` placeholders, relative to /api/v2. */
  path: string;
  /** Scopes from the contract's Scopes column; null for "basic only". */
  scopes: string[] | null;
}

/** Every operation of the contract with a method, a path and scopes, from its endpoint tables. */
export function contractOperations(): ContractOperation[] {
  const text = readFileSync(join(SHARED, 'reference', 'api-v2-reference.md'), 'utf8');
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

/** Every operation of the real API (schemas reference, part B). */
export function wireOperations(): WireOperation[] {
  const text = readFileSync(join(SHARED, 'reference', 'scormcloud-api-v2-schemas.md'), 'utf8');
  const ops: WireOperation[] = [];
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 10 || !/^(GET|POST|PUT|DELETE|HEAD|PATCH)$/.test(cells[1])) continue;
    ops.push({ method: cells[1], path: cells[2].replace(/`/g, ''), operationId: cells[3].replace(/ \(DEPRECATED\)/, ''), auth: cells[7].split(',') });
  }
  return ops;
}
