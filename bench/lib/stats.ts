/** Small statistics helpers shared by the benchmarks. Values are plain numbers (the benches use milliseconds). */

/**
 * The p-th percentile (0..100) of values already sorted ascending, interpolating linearly between the two
 * closest ranks (the same definition as numpy's default). NaN for an empty input.
 */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  if (p <= 0) return sorted[0];
  if (p >= 100) return sorted[n - 1];
  const rank = (p / 100) * (n - 1);
  const lo = Math.floor(rank);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

/** The p-th percentile of unsorted values (copies and sorts them). */
export function percentile(values: ArrayLike<number>, p: number): number {
  return percentileSorted(Float64Array.from(values).sort(), p);
}

export interface Summary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  p999: number;
  max: number;
}

export function summarize(values: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i];
  return {
    count: n,
    min: n ? sorted[0] : NaN,
    mean: n ? sum / n : NaN,
    p50: percentileSorted(sorted, 50),
    p90: percentileSorted(sorted, 90),
    p95: percentileSorted(sorted, 95),
    p99: percentileSorted(sorted, 99),
    p999: percentileSorted(sorted, 99.9),
    max: n ? sorted[n - 1] : NaN,
  };
}

/**
 * An append-only list of numbers without per-value allocation (grows a Float64Array by doubling), for
 * recording one latency per response at tens of thousands of responses per second.
 */
export class Recorder {
  private buf: Float64Array;
  private n = 0;

  constructor(initialCapacity = 1 << 16) {
    this.buf = new Float64Array(initialCapacity);
  }

  add(value: number): void {
    if (this.n === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.n++] = value;
  }

  get length(): number {
    return this.n;
  }

  values(): Float64Array {
    return this.buf.subarray(0, this.n);
  }

  summary(): Summary {
    return summarize(this.values());
  }
}
