/**
 * Records keyed by names from content or clients (item identifiers, objective ids, shared data target ids, AICC
 * sections and columns: `__proto__` and `constructor` included) have no prototype: such a name is a key like any other, never Object.prototype's (reading
 * `constructor` of a plain object finds a function; writing `__proto__` would replace the prototype or, through a
 * `??=`, write into Object.prototype itself). JSON.stringify handles them as plain objects.
 */
export function emptyRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** A copy of `from` (a plain object, e.g. just parsed from JSON) as a record without prototype. */
export function recordOf<T>(from: Record<string, T> | undefined): Record<string, T> {
  const out = emptyRecord<T>();
  if (from) for (const k of Object.keys(from)) out[k] = from[k];
  return out;
}

/** The own value of `key` in a record built from code (a lookup table): never one of Object.prototype's members. */
export function ownValue<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
