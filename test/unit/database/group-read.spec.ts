import { GroupReader } from '../../../src/platform/database/group-read';

const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
};

describe('GroupReader', () => {
  it('reads alone when idle, then reads what arrived meanwhile in one query, and answers each caller its own row', async () => {
    const queries: string[][] = [];
    const gates: Array<() => void> = [];
    const reader = new GroupReader<string>(
      async (keys) => {
        queries.push(keys);
        await new Promise<void>((r) => gates.push(r));
        if (keys.includes('boom')) throw new Error('query failed');
        return new Map(keys.filter((k) => k !== 'missing').map((k) => [k, `row ${k}`]));
      },
      { maxBatch: 3, readers: 1 },
    );
    const first = reader.read('a');
    await settle();
    expect(queries).toEqual([['a']]);
    const later = ['b', 'missing', 'b', 'c', 'd'].map((k) => reader.read(k));
    await settle();
    gates.splice(0).forEach((g) => g());
    await expect(first).resolves.toBe('row a');
    await settle();
    // Up to maxBatch callers a query; one key asked twice is read once.
    expect(queries).toEqual([['a'], ['b', 'missing']]);
    gates.splice(0).forEach((g) => g());
    await settle();
    expect(queries).toEqual([['a'], ['b', 'missing'], ['c', 'd']]);
    gates.splice(0).forEach((g) => g());
    await expect(Promise.all(later)).resolves.toEqual(['row b', undefined, 'row b', 'row c', 'row d']);
  });

  it('gives a failed query’s error to its callers only', async () => {
    const gates: Array<() => void> = [];
    const reader = new GroupReader<string>(
      async (keys) => {
        await new Promise<void>((r) => gates.push(r));
        if (keys.includes('boom')) throw new Error('query failed');
        return new Map(keys.map((k) => [k, k]));
      },
      { maxBatch: 10, readers: 1 },
    );
    const first = reader.read('x');
    const bad = [reader.read('boom'), reader.read('y')];
    await settle();
    gates.splice(0).forEach((g) => g());
    await expect(first).resolves.toBe('x');
    await settle();
    gates.splice(0).forEach((g) => g());
    await expect(Promise.allSettled(bad)).resolves.toEqual([
      { status: 'rejected', reason: new Error('query failed') },
      { status: 'rejected', reason: new Error('query failed') },
    ]);
    const after = reader.read('z');
    await settle();
    gates.splice(0).forEach((g) => g());
    await expect(after).resolves.toBe('z');
  });
});
