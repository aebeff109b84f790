import { contractOperations, wireOperations } from '../support/contract';
import { call, startTestServer, TestServer } from '../support/test-server';

type OpenApiOperation = { operationId: string; security?: Array<Record<string, string[]>>; 'x-lcds-scopes'?: string[] };

/**
 * Walks every operation the service implements (its OpenAPI document is generated from the route metadata)
 * and compares the declared scopes and accepted credentials with the contract and the real API.
 */
describe('declared scopes match the contract', () => {
  let s: TestServer;
  let implemented: Array<{ method: string; path: string; op: OpenApiOperation }>;

  beforeAll(async () => {
    s = await startTestServer();
    const doc = await call(`${s.api}/openapi.json`);
    implemented = Object.entries(doc.body.paths as Record<string, Record<string, OpenApiOperation>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), path: path.replace(/^\/api\/v2/, ''), op })),
    );
  });
  afterAll(async () => s?.close());

  it('reads the contract', () => {
    const ops = contractOperations();
    expect(ops.length).toBeGreaterThan(80);
    expect(ops.find((o) => o.operation === 'ping')?.scopes).toEqual(['read:ping']);
    expect(ops.find((o) => o.operation === 'getRegistrations')?.scopes).toEqual(['read', 'read:registration']);
    expect(ops.find((o) => o.operation === 'importCourseAssetFile')?.scopes).toBeNull();
  });

  it('every implemented operation is a real operation, with its real operationId, method and path', () => {
    const wire = wireOperations();
    expect(wire.length).toBe(170);
    for (const { method, path, op } of implemented) {
      const real = wire.find((w) => w.method === method && w.path === path);
      expect({ method, path, operationId: real?.operationId }).toEqual({ method, path, operationId: op.operationId });
    }
  });

  it('every implemented operation declares authorization', () => {
    for (const { method, path, op } of implemented) {
      expect({ method, path, security: (op.security ?? []).length > 0 }).toEqual({ method, path, security: true });
    }
  });

  it('scopes and credential kinds equal the contract', () => {
    const contract = contractOperations();
    const wire = wireOperations();
    let compared = 0;
    for (const { method, path, op } of implemented) {
      const schemes = (op.security ?? []).flatMap((sec) => Object.keys(sec)).sort();
      const real = wire.find((w) => w.method === method && w.path === path)!;
      const c = contract.find((o) => o.method === method && o.path === path);
      // The contract wins where it is stricter than the generated clients ("basic only" asset imports).
      const expected = c?.scopes === null ? ['APP_NORMAL'] : [...real.auth].sort();
      expect({ method, path, schemes }).toEqual({ method, path, schemes: expected });
      if (!c) continue;
      compared++;
      if (c.scopes !== null) expect({ method, path, scopes: [...(op['x-lcds-scopes'] ?? [])].sort() }).toEqual({ method, path, scopes: [...c.scopes].sort() });
    }
    expect(compared).toBeGreaterThan(0);
  });
});
