/**
 * Sets `key` in a Map used as a bounded in-process cache: the key goes to the end (the newest), and once the map holds
 * `max` entries the oldest written goes first. The one eviction rule of the service's small caches (decoded tokens,
 * parsed settings, opened secrets, …).
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  if (map.size >= max) map.delete(map.keys().next().value as K);
  map.set(key, value);
}
