/**
 * Runs `fn` over an async iterable with at most `limit` calls in flight, without reading the whole iterable first.
 * Stops pulling new items after the first failure and rethrows it once the calls in flight have settled.
 */
export async function forEachConcurrent<T>(items: AsyncIterable<T>, limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const running = new Set<Promise<void>>();
  let failure = null as { error: unknown } | null;
  for await (const item of items) {
    if (failure) break;
    const task: Promise<void> = fn(item).then(
      () => {
        running.delete(task);
      },
      (error: unknown) => {
        running.delete(task);
        failure ??= { error };
      },
    );
    running.add(task);
    if (running.size >= limit) await Promise.race(running);
    if (failure) break;
  }
  await Promise.all(running);
  if (failure) throw failure.error;
}
