import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../../../src/platform/http/json-depth';

const nested = (depth: number, open = '[', close = ']'): string => `${open.repeat(depth)}1${close.repeat(depth)}`;

describe('jsonNestsDeeperThan', () => {
  it('counts objects and arrays, up to and past the limit', () => {
    expect(jsonNestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonNestsDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    const objects = `${'{"a":'.repeat(MAX_JSON_DEPTH + 1)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`;
    expect(jsonNestsDeeperThan(objects)).toBe(true);
    expect(jsonNestsDeeperThan(Buffer.from(objects))).toBe(true);
    expect(jsonNestsDeeperThan(nested(5000), 100)).toBe(true);
  });

  it('measures depth, not how many containers there are', () => {
    const wide = `[${new Array(5000).fill('[{"a":[1]}]').join(',')}]`;
    expect(jsonNestsDeeperThan(wide)).toBe(false);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const inString = JSON.stringify({ text: '['.repeat(500), quoted: '\\"[[[[' + '{'.repeat(300) });
    expect(jsonNestsDeeperThan(inString)).toBe(false);
    // An escaped quote does not end the string: the brackets after it are still inside.
    expect(jsonNestsDeeperThan(`["\\"${'['.repeat(300)}"]`)).toBe(false);
    // A string that ends with an escaped backslash does end: the brackets after it count.
    expect(jsonNestsDeeperThan(`["\\\\",${nested(MAX_JSON_DEPTH)}]`)).toBe(true);
  });
});
