/**
 * Marks an entity property whose stored value is sealed with the KeyRing (a `v1.…` string), or a JSON column one of
 * whose fields is. `lcds secrets reseal` finds every stored secret through these marks: a module that stores a new
 * kind of secret marks its column and nothing else needs to know.
 */
export interface SealedField {
  property: string;
  /** For a JSON column: the field of the stored object that holds the sealed value. */
  jsonField?: string;
  /**
   * A column of which only some rows hold a sealed value (as the first space-separated word of the text): values
   * that are not in the sealed format are left alone rather than counted as unreadable.
   */
  optional?: boolean;
}

const SEALED_FIELDS = Symbol('lcds:sealed-fields');

type Marked = { [SEALED_FIELDS]?: SealedField[] };

export function Sealed(options: { jsonField?: string; optional?: boolean } = {}): PropertyDecorator {
  return (prototype, property) => {
    const marked = prototype as Marked;
    const own = Object.prototype.hasOwnProperty.call(marked, SEALED_FIELDS) ? marked[SEALED_FIELDS]! : [];
    Object.defineProperty(marked, SEALED_FIELDS, {
      value: [...own, { property: String(property), ...(options.jsonField ? { jsonField: options.jsonField } : {}), ...(options.optional ? { optional: true } : {}) }],
      configurable: true,
    });
  };
}

/** The sealed fields of an entity class. */
export function sealedFields(entity: unknown): SealedField[] {
  if (typeof entity !== 'function') return [];
  return (entity.prototype as Marked)[SEALED_FIELDS] ?? [];
}
