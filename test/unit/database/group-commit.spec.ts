import { GroupCommitter, GroupCommitWriter } from '../../../src/platform/database/group-commit';

interface Item {
  key: string;
  n: number;
  poison?: boolean;
}

/** A writer that records its transactions and lets the test decide when each finishes. */
class RecordingWriter implements GroupCommitWriter<Item> {
  readonly batches: number[][] = [];
  readonly singles: number[] = [];
  private readonly gates: Array<() => void> = [];
  open = 0;
  maxOpen = 0;

  keyOf(item: Item): string {
    return item.key;
  }

  async writeBatch(items: Item[]): Promise<boolean[]> {
    this.batches.push(items.map((i) => i.n));
    await this.hold();
    if (items.some((i) => i.poison)) throw new Error('batch failed');
    return items.map((i) => i.n % 2 === 0);
  }

  async writeOne(item: Item): Promise<boolean> {
    this.singles.push(item.n);
    await this.hold();
    if (item.poison) throw new Error(`item ${item.n} failed`);
    return item.n % 2 === 0;
  }

  /** Lets every transaction under way finish. */
  releaseAll(): void {
    for (const g of this.gates.splice(0)) g();
  }

  private async hold(): Promise<void> {
    this.open++;
    this.maxOpen = Math.max(this.maxOpen, this.open);
    await new Promise<void>((r) => this.gates.push(r));
    this.open--;
  }
}

/** Lets every promise chain that can move, move. */
const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
};

describe('GroupCommitter', () => {
  it('writes alone when idle, then batches what arrived meanwhile, up to maxBatch, `writers` transactions at once', async () => {
    const w = new RecordingWriter();
    const g = new GroupCommitter(w, { maxBatch: 3, writers: 1 });
    const first = g.write({ key: 'a', n: 0 });
    await settle();
    // Idle: the first write goes at once, alone.
    expect(w.singles).toEqual([0]);
    const rest = [1, 2, 3, 4, 5].map((n) => g.write({ key: `k${n}`, n }));
    await settle();
    expect(w.batches).toEqual([]);
    w.releaseAll();
    await expect(first).resolves.toBe(true);
    await settle();
    // What waited goes together, in arrival order.
    expect(w.batches).toEqual([[1, 2, 3]]);
    w.releaseAll();
    await settle();
    expect(w.batches).toEqual([[1, 2, 3], [4, 5]]);
    w.releaseAll();
    // Each caller gets its own item's answer.
    await expect(Promise.all(rest)).resolves.toEqual([false, true, false, true, false]);
    expect(w.singles).toEqual([0]);
    expect(w.maxOpen).toBe(1);
  });

  it('never has two items of one key in a batch or in flight together, and keeps their order', async () => {
    const w = new RecordingWriter();
    const g = new GroupCommitter(w, { maxBatch: 10, writers: 2 });
    const answers = [g.write({ key: 'a', n: 0 }), g.write({ key: 'a', n: 1 }), g.write({ key: 'b', n: 2 }), g.write({ key: 'a', n: 3 }), g.write({ key: 'c', n: 4 })];
    await settle();
    // a0 and b2 go at once (two writers); a1 waits for a0, a3 behind a1, c4 for a free writer.
    expect(w.singles).toEqual([0, 2]);
    w.releaseAll();
    await settle();
    expect(w.batches).toEqual([[1, 4]]);
    w.releaseAll();
    await settle();
    expect(w.singles).toEqual([0, 2, 3]);
    w.releaseAll();
    await expect(Promise.all(answers)).resolves.toEqual([true, false, true, false, true]);
    expect(w.maxOpen).toBe(2);
  });

  it('writes a failed batch again item by item, so only the failing item’s caller gets the error', async () => {
    const w = new RecordingWriter();
    const g = new GroupCommitter(w, { maxBatch: 5, writers: 1 });
    const blocker = g.write({ key: 'x', n: 10 });
    const items = [g.write({ key: 'a', n: 1 }), g.write({ key: 'b', n: 2, poison: true }), g.write({ key: 'c', n: 4 })];
    await settle();
    w.releaseAll();
    await blocker;
    await settle();
    expect(w.batches).toEqual([[1, 2, 4]]);
    w.releaseAll();
    await settle();
    expect(w.singles).toEqual([10, 1, 2, 4]);
    w.releaseAll();
    const settled = await Promise.allSettled(items);
    expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toEqual(new Error('item 2 failed'));
    expect((settled[2] as PromiseFulfilledResult<boolean>).value).toBe(true);
  });
});
