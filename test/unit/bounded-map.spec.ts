import { setBounded } from '../../src/platform/bounded-map';

describe('setBounded: the eviction rule of the in-process caches', () => {
  it('keeps at most max entries, dropping the oldest written', () => {
    const m = new Map<string, number>();
    for (const [i, k] of ['a', 'b', 'c', 'd'].entries()) setBounded(m, k, i, 3);
    expect([...m.keys()]).toEqual(['b', 'c', 'd']);
  });

  it('a key written again becomes the newest and evicts nothing', () => {
    const m = new Map<string, number>([['a', 1], ['b', 2], ['c', 3]]);
    setBounded(m, 'a', 10, 3);
    expect([...m.entries()]).toEqual([['b', 2], ['c', 3], ['a', 10]]);
    setBounded(m, 'd', 4, 3);
    expect([...m.keys()]).toEqual(['c', 'a', 'd']);
  });
});
