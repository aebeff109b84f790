import autocannon from 'autocannon';
import { Recorder, Summary } from './stats';

export interface LoadOptions {
  url: string;
  connections: number;
  durationS: number;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD';
  headers?: Record<string, string>;
  body?: string;
  /** Requests per connection in flight (HTTP pipelining); 1 unless a bench needs more. */
  pipelining?: number;
}

export interface LoadResult {
  url: string;
  connections: number;
  durationS: number;
  /** Responses of any status. */
  responses: number;
  ok2xx: number;
  non2xx: number;
  /** Socket errors and timeouts (requests without a response). */
  errors: number;
  timeouts: number;
  /** Responses per second over the run. */
  reqPerSec: number;
  /** Latency of every response in ms (our own record: autocannon's histogram has whole-millisecond buckets). */
  latency: Summary;
  statusCodes: Record<string, number>;
}

/** Runs autocannon in this process against one URL and answers throughput and latency percentiles. */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies = new Recorder();
  return new Promise<LoadResult>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: options.durationS,
        method: options.method ?? 'GET',
        headers: options.headers,
        body: options.body,
        pipelining: options.pipelining ?? 1,
        timeout: 10,
      },
      (err: unknown, result: autocannon.Result) => {
        if (err) {
          reject(err instanceof Error ? err : new Error(`autocannon failed: ${JSON.stringify(err)}`));
          return;
        }
        const statusCodes: Record<string, number> = {};
        for (const [code, stat] of Object.entries((result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {})) {
          statusCodes[code] = stat.count;
        }
        const responses = latencies.length;
        resolve({
          url: options.url,
          connections: options.connections,
          durationS: result.duration,
          responses,
          ok2xx: result['2xx'],
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          reqPerSec: responses / result.duration,
          latency: latencies.summary(),
          statusCodes,
        });
      },
    );
    instance.on('response', (_client: unknown, _statusCode: number, _bytes: number, responseTime: number) => latencies.add(responseTime));
  });
}
