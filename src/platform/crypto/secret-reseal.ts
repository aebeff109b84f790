import type { DataSource } from 'typeorm';
import type { KeyRing } from './keyring';
import { sealedFields } from './sealed';

/** One stored kind of secret: a column of a table (or a field of a JSON column). */
export interface SealedColumn {
  table: string;
  column: string;
  /** The primary key's columns, in order (batches walk it). */
  primaryKey: string[];
  jsonField?: string;
  optional?: boolean;
}

export interface ResealCounts {
  /** Stored values examined. */
  examined: number;
  /** Values that a previous master key had sealed and that are now sealed with the current one. */
  resealed: number;
  /** Values that no configured key opens (left as they are). */
  unreadable: number;
}

const BATCH = 200;
/** KeyRing.seal's output: version, 12-byte nonce, 16-byte tag, ciphertext (base64url). */
const SEALED_FORMAT = /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]*$/;
const CAS_TRIES = 5;

/** True when a stored value is in KeyRing.seal's format (a value stored in clear before its column was sealed is not). */
export function isSealedValue(value: string): boolean {
  return SEALED_FORMAT.test(value);
}

/**
 * Re-seals every stored secret with the current master key (`lcds secrets reseal`). Safe while the service runs:
 * rows are read in primary-key batches and each is written back only if it still holds the value that was read
 * (compare-and-set), so a secret changed meanwhile is read again rather than overwritten. Resumable: a value the
 * current key already opens is left alone, so a second run after an interruption only does what is left.
 */
export class SecretResealer {
  constructor(
    private readonly ds: DataSource,
    private readonly keys: KeyRing,
  ) {}

  /** Every sealed column of the data source's entities (those marked with @Sealed). */
  columns(): SealedColumn[] {
    return this.ds.entityMetadatas.flatMap((meta) =>
      sealedFields(meta.target).map((field) => {
        const column = meta.findColumnWithPropertyName(field.property);
        if (!column) throw new Error(`${meta.name}.${field.property} is marked @Sealed but is not a column`);
        return {
          table: meta.tableName,
          column: column.databaseName,
          primaryKey: meta.primaryColumns.map((p) => p.databaseName),
          ...(field.jsonField ? { jsonField: field.jsonField } : {}),
          ...(field.optional ? { optional: true } : {}),
        };
      }),
    );
  }

  /** How many stored values the run will examine (the progress bar's total). */
  async total(columns = this.columns()): Promise<number> {
    let total = 0;
    for (const c of columns) {
      const rows = await this.ds.query<Array<{ n: number | string }>>(`SELECT COUNT(*) AS n FROM ${this.q(c.table)} WHERE ${this.q(c.column)} IS NOT NULL`);
      total += Number(rows[0]?.n ?? 0);
    }
    return total;
  }

  /**
   * Runs over every sealed column. `dryRun` only counts: `resealed` is then how many values a previous key sealed.
   * `progress` is called after each batch with the running counts.
   */
  async run(options: { dryRun?: boolean; progress?: (counts: ResealCounts) => void } = {}): Promise<ResealCounts> {
    const counts: ResealCounts = { examined: 0, resealed: 0, unreadable: 0 };
    for (const c of this.columns()) {
      const keys = c.primaryKey.map((k) => this.q(k));
      const keyTuple = `(${keys.join(', ')})`;
      const selectKeys = keys.map((k, i) => `${k} AS k${i}`).join(', ');
      let after: unknown[] | null = null;
      for (;;) {
        const rows: Array<Record<string, unknown> & { value: string }> = await this.ds.query(
          `SELECT ${selectKeys}, ${this.q(c.column)} AS value FROM ${this.q(c.table)} WHERE ${this.q(c.column)} IS NOT NULL` +
            (after === null ? '' : ` AND ${keyTuple} > (${keys.map(() => '?').join(', ')})`) +
            ` ORDER BY ${keys.join(', ')} LIMIT ${BATCH}`,
          after ?? [],
        );
        for (const row of rows) {
          const id = c.primaryKey.map((_, i) => row[`k${i}`]);
          const outcome = await this.resealRow(c, id, row.value, options.dryRun === true);
          if (outcome !== 'none') counts.examined++;
          if (outcome === 'resealed') counts.resealed++;
          else if (outcome === 'unreadable') counts.unreadable++;
        }
        options.progress?.({ ...counts });
        if (rows.length < BATCH) break;
        const last = rows[rows.length - 1];
        after = c.primaryKey.map((_, i) => last[`k${i}`]);
      }
    }
    return counts;
  }

  private async resealRow(c: SealedColumn, id: unknown[], stored: string, dryRun: boolean): Promise<'current' | 'resealed' | 'unreadable' | 'none'> {
    let value = stored;
    for (let attempt = 0; attempt < CAS_TRIES; attempt++) {
      const next = this.resealed(c, value);
      if (next === 'current' || next === 'unreadable' || next === 'none') return next;
      if (dryRun) return 'resealed';
      if (await this.compareAndSet(c, id, value, next.value)) return 'resealed';
      // Changed meanwhile (or deleted): read it again.
      const again: Array<{ value: string | null }> = await this.ds.query(
        `SELECT ${this.q(c.column)} AS value FROM ${this.q(c.table)} WHERE ${this.keyMatch(c)}`,
        id,
      );
      if (!again[0] || again[0].value === null) return 'current';
      value = again[0].value;
    }
    throw new Error(`${c.table}.${c.column} of (${id.map(String).join(', ')}) kept changing while it was re-sealed; run the command again`);
  }

  /** The stored value re-sealed with the current key, or why it is left alone. */
  /** 'none': a row of an optional column that holds no secret. */
  private resealed(c: SealedColumn, stored: string): { value: string } | 'current' | 'unreadable' | 'none' {
    let sealed: unknown = stored;
    let doc: Record<string, unknown> | null = null;
    if (c.jsonField) {
      try {
        doc = JSON.parse(stored) as Record<string, unknown>;
      } catch {
        return 'unreadable';
      }
      sealed = doc && typeof doc === 'object' && Object.hasOwn(doc, c.jsonField) ? doc[c.jsonField] : undefined;
      if (sealed === undefined || sealed === null) return 'current';
    }
    if (typeof sealed !== 'string') return 'unreadable';
    let token: string = sealed;
    let rest = '';
    if (c.optional) {
      const space = token.indexOf(' ');
      if (space >= 0) [token, rest] = [token.slice(0, space), token.slice(space)];
      if (!SEALED_FORMAT.test(token)) return 'none';
    }
    let opened;
    try {
      opened = this.keys.openSealed(token);
    } catch {
      return 'unreadable';
    }
    if (opened.current) return 'current';
    const fresh = this.keys.seal(opened.plaintext) + rest;
    return { value: doc && c.jsonField ? JSON.stringify({ ...doc, [c.jsonField]: fresh }) : fresh };
  }

  private async compareAndSet(c: SealedColumn, id: unknown[], expected: string, next: string): Promise<boolean> {
    const runner = this.ds.createQueryRunner();
    try {
      const result = await runner.query(
        `UPDATE ${this.q(c.table)} SET ${this.q(c.column)} = ? WHERE ${this.keyMatch(c)} AND ${this.q(c.column)} = ?`,
        [next, ...id, expected],
        true,
      );
      return ((result as { affected?: number }).affected ?? 0) > 0;
    } finally {
      await runner.release();
    }
  }

  private keyMatch(c: SealedColumn): string {
    return c.primaryKey.map((k) => `${this.q(k)} = ?`).join(' AND ');
  }

  private q(name: string): string {
    return this.ds.driver.escape(name);
  }
}
