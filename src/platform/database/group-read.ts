interface WaitingRead<V> {
  key: string;
  resolve(value: V | undefined): void;
  reject(err: unknown): void;
}

/**
 * Reads by key, grouped the way GroupCommitter groups writes: a read that arrives while fewer than `readers`
 * queries are under way goes at once, alone (no added latency when idle); under load the reads that arrive meanwhile
 * go together as one query (`WHERE key IN (…)`), up to `maxBatch`. Each query is one round trip to the database,
 * which on a small machine costs the service more CPU than the query costs the database. Every caller gets the row
 * of its key (undefined when there is none); a query's error reaches every caller of that query.
 */
export class GroupReader<V> {
  private readonly queue: Array<WaitingRead<V>> = [];
  private reading = 0;

  constructor(
    private readonly load: (keys: string[]) => Promise<Map<string, V>>,
    private readonly options: { maxBatch: number; readers: number },
  ) {}

  read(key: string): Promise<V | undefined> {
    return new Promise<V | undefined>((resolve, reject) => {
      this.queue.push({ key, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.reading < this.options.readers && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.reading++;
      void this.run(batch).finally(() => {
        this.reading--;
        this.pump();
      });
    }
  }

  private async run(batch: Array<WaitingRead<V>>): Promise<void> {
    try {
      const rows = await this.load([...new Set(batch.map((r) => r.key))]);
      for (const r of batch) r.resolve(rows.get(r.key));
    } catch (err) {
      for (const r of batch) r.reject(err);
    }
  }
}
