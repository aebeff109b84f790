import { contractOperations, wireOperations } from '../support/contract';
import { call, startTestServer, TestServer } from '../support/test-server';

type OpenApiOperation = { operationId: string; tags?: string[]; security?: Array<Record<string, string[]>>; 'x-lcds-scopes'?: string[] };

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

  it("every implemented operation is a real operation with its real operationId, or the contract's under its contract name, or LCDS's own under /lcds/", () => {
    const wire = wireOperations();
    const contract = contractOperations();
    expect(wire.length).toBe(170);
    for (const { method, path, op } of implemented) {
      if (path.startsWith('/lcds/')) {
        expect({ method, path, tags: op.tags }).toEqual({ method, path, tags: ['lcds'] });
        continue;
      }
      const real = wire.find((w) => w.method === method && w.path === path);
      const contractOnly = contract.find((c) => c.method === method && c.path === path);
      const expected = real?.operationId ?? (contractOnly ? contractOnly.operation[0].toUpperCase() + contractOnly.operation.slice(1) : undefined);
      expect({ method, path, operationId: expected }).toEqual({ method, path, operationId: op.operationId });
    }
  });

  it('every implemented operation declares authorization (but those the real API answers without: GetLti13DispatchLaunch)', () => {
    const open = new Set(wireOperations().filter((w) => w.auth.includes('(none)')).map((w) => `${w.method} ${w.path}`));
    expect([...open]).toEqual(['GET /dispatch/dispatches/{dispatchId}/launches']);
    for (const { method, path, op } of implemented) {
      expect({ method, path, security: (op.security ?? []).length > 0 }).toEqual({ method, path, security: !open.has(`${method} ${path}`) });
    }
  });

  it('scopes and credential kinds equal the contract', () => {
    const contract = contractOperations();
    const wire = wireOperations();
    let compared = 0;
    for (const { method, path, op } of implemented) {
      const schemes = (op.security ?? []).flatMap((sec) => Object.keys(sec)).sort();
      const real = wire.find((w) => w.method === method && w.path === path);
      const c = contract.find((o) => o.method === method && o.path === path);
      // The contract wins where it is stricter than the generated clients ("basic only" asset imports); an operation
      // of the contract alone, or LCDS's own, takes an application's key or a bearer token.
      const expected = c?.scopes === null ? ['APP_NORMAL'] : real ? real.auth.filter((a) => a !== '(none)').sort() : schemes.includes('APP_MANAGEMENT') ? ['APP_MANAGEMENT', 'OAUTH'] : ['APP_NORMAL', 'OAUTH'];
      expect({ method, path, schemes }).toEqual({ method, path, schemes: expected });
      if (!c) continue;
      compared++;
      if (c.scopes !== null) expect({ method, path, scopes: [...(op['x-lcds-scopes'] ?? [])].sort() }).toEqual({ method, path, scopes: [...c.scopes].sort() });
    }
    expect(compared).toBeGreaterThan(0);
  });
});
