import { paddedChunks, padToPowerOfTwo, powerOfTwoChunks } from '../../../src/platform/database/hot-statement';

describe('statement shapes of the hot paths', () => {
  it('pads a list to a power of two with its last element, so few statement texts exist', () => {
    expect(padToPowerOfTwo(['a'])).toEqual(['a']);
    expect(padToPowerOfTwo(['a', 'b', 'c'])).toEqual(['a', 'b', 'c', 'c']);
    expect(padToPowerOfTwo([1, 2, 3, 4, 5])).toEqual([1, 2, 3, 4, 5, 5, 5, 5]);
    const lengths = new Set(Array.from({ length: 32 }, (_, i) => padToPowerOfTwo(Array.from({ length: i + 1 }, (__, j) => j)).length));
    expect([...lengths]).toEqual([1, 2, 4, 8, 16, 32]);
  });

  it('cuts a list into power-of-two runs, longest first, keeping every element once and in order', () => {
    expect(powerOfTwoChunks([])).toEqual([]);
    expect(powerOfTwoChunks([1, 2, 3])).toEqual([[1, 2], [3]]);
    const list = Array.from({ length: 21 }, (_, i) => i);
    const chunks = powerOfTwoChunks(list);
    expect(chunks.map((c) => c.length)).toEqual([16, 4, 1]);
    expect(chunks.flat()).toEqual(list);
  });

  it('cuts a list into runs of the maximum, the last padded to a power of two: one statement where the list fits', () => {
    expect(paddedChunks([])).toEqual([]);
    expect(paddedChunks([1, 2, 3], 32)).toEqual([[1, 2, 3, 3]]);
    const list = Array.from({ length: 21 }, (_, i) => i);
    expect(paddedChunks(list, 32).map((c) => c.length)).toEqual([32]);
    const long = Array.from({ length: 70 }, (_, i) => i);
    const chunks = paddedChunks(long, 32);
    expect(chunks.map((c) => c.length)).toEqual([32, 32, 8]);
    // Every element, in order, then the last one repeated.
    expect([...new Set(chunks.flat())]).toEqual(long);
    expect(chunks[2].slice(6)).toEqual([69, 69]);
  });
});
