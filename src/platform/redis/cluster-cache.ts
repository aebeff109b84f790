import { ClusterEvents } from './cluster-events.service';
import { setBounded } from '../bounded-map';

interface Entry<T> {
  value: T;
  group: string;
  at: number;
}

/**
 * Rows that change rarely, kept in memory by key on every node, each in a group (what one invalidation drops: a
 * course's versions). `invalidate(group)` after a write has committed drops the group on every node (ClusterEvents:
 * Redis pub/sub on the production stack, this node at once); a lost subscription drops everything, and `ttlMs` bounds
 * what a lost message can cost. A read that was under way when any invalidation came is not kept (it may have read
 * the rows from before the write). At most `max` entries (the oldest go first). Values are handed out as copies
 * (`copy`), so that no caller changes another's.
 */
export class ClusterCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Bumped by every invalidation heard: a read begun before it is not kept. */
  private generation = 0;

  constructor(
    private readonly events: ClusterEvents,
    private readonly channel: string,
    private readonly options: { ttlMs: number; max: number; copy: (value: T) => T },
  ) {
    events.on(channel, (message) => {
      this.generation++;
      if (message === ClusterEvents.RESET) {
        this.entries.clear();
        return;
      }
      for (const [key, entry] of this.entries) if (entry.group === message) this.entries.delete(key);
    });
  }

  /** The value of `key` (in `group`), from memory or from `load`; a null load is not kept. */
  async get(group: string, key: string, load: () => Promise<T | null>): Promise<T | null> {
    const hit = this.entries.get(key);
    if (hit && Date.now() - hit.at < this.options.ttlMs) return this.options.copy(hit.value);
    const generation = this.generation;
    const value = await load();
    if (value === null) return null;
    if (generation === this.generation) {
      setBounded(this.entries, key, { value: this.options.copy(value), group, at: Date.now() }, this.options.max);
    }
    return value;
  }

  /** Drops the group on every node; call it after the write has committed. */
  invalidate(group: string): Promise<void> {
    return this.events.publish(this.channel, group);
  }
}
