/** How a GroupCommitter writes: a batch in one transaction, or one item alone. */
export interface GroupCommitWriter<T> {
  /** The rows an item locks: items of the same key never share a batch nor are written at the same time. */
  keyOf(item: T): string;
  /** Writes the items in one transaction; answers whether each was applied, in order. Throws with nothing written. */
  writeBatch(items: T[]): Promise<boolean[]>;
  /** Writes one item in its own transaction (what a failed batch falls back to, item by item). */
  writeOne(item: T): Promise<boolean>;
}

interface Waiting<T> {
  item: T;
  key: string;
  resolve(applied: boolean): void;
  reject(err: unknown): void;
}

/**
 * Group commit: many callers' small writes (runtime commits of many learners) share transactions. A write that
 * arrives while fewer than `writers` batches are under way goes at once, alone, so an idle service adds no latency;
 * under load the writes that arrive meanwhile wait and go together as the next batch, up to `maxBatch`. A batch
 * costs one transaction's round trips (BEGIN, COMMIT, one statement for the rows all items touch alike) instead
 * of one set per item, which on MySQL is most of a commit's client CPU.
 *
 * Every caller still gets its own answer only once its transaction has committed. A batch that fails (a deadlock
 * with another writer, a bad row) is written again item by item, so an item's error reaches only its own caller.
 * Items of the same key are never in flight together; the later one waits for the next batch, in arrival order.
 */
export class GroupCommitter<T> {
  private readonly queue: Array<Waiting<T>> = [];
  private readonly inFlight = new Set<string>();
  private writing = 0;

  constructor(
    private readonly writer: GroupCommitWriter<T>,
    private readonly options: { maxBatch: number; writers: number },
  ) {}

  write(item: T): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ item, key: this.writer.keyOf(item), resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.writing < this.options.writers && this.queue.length > 0) {
      const batch = this.takeBatch();
      if (batch.length === 0) return;
      this.writing++;
      for (const w of batch) this.inFlight.add(w.key);
      void this.run(batch).finally(() => {
        for (const w of batch) this.inFlight.delete(w.key);
        this.writing--;
        this.pump();
      });
    }
  }

  /** The oldest waiting items, one per key and none of a key in flight, up to maxBatch. */
  private takeBatch(): Array<Waiting<T>> {
    const batch: Array<Waiting<T>> = [];
    const keys = new Set<string>();
    for (let i = 0; i < this.queue.length && batch.length < this.options.maxBatch; ) {
      const w = this.queue[i];
      // A later item of a key skipped here stays behind the earlier one: order per key is kept.
      if (this.inFlight.has(w.key) || keys.has(w.key)) {
        keys.add(w.key);
        i++;
        continue;
      }
      keys.add(w.key);
      batch.push(w);
      this.queue.splice(i, 1);
    }
    return batch;
  }

  private async run(batch: Array<Waiting<T>>): Promise<void> {
    if (batch.length > 1) {
      let applied: boolean[] | undefined;
      try {
        applied = await this.writer.writeBatch(batch.map((w) => w.item));
      } catch {
        // Nothing of the batch was written: each item again on its own, below.
      }
      if (applied) {
        batch.forEach((w, i) => w.resolve(applied[i]));
        return;
      }
    }
    await Promise.all(
      batch.map(async (w) => {
        try {
          w.resolve(await this.writer.writeOne(w.item));
        } catch (err) {
          w.reject(err);
        }
      }),
    );
  }
}
