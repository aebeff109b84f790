import type { IncomingMessage, ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics (prom-client). One registry per process: instruments are module singletons,
 * as prom-client intends, so code that is not a Nest provider (the job executor, the commit endpoint) records
 * without injection. Served by GET /metrics (MetricsController).
 */
export const metricsRegistry = new Registry();

let defaultsCollected = false;
/** Event-loop lag, heap and RSS, GC, handles: prom-client's process metrics, once per process. */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register: metricsRegistry, prefix: 'lcds_', eventLoopMonitoringPrecision: 20 });
}

const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpRequests = new Counter({
  name: 'lcds_http_requests_total',
  help: 'HTTP requests answered, by operation (the API operationId, or the route for pages), method and status',
  labelNames: ['operation', 'method', 'status'] as const,
  registers: [metricsRegistry],
});

export const httpDuration = new Histogram({
  name: 'lcds_http_request_duration_seconds',
  help: 'Time from the request to the last byte of the answer, by operation and status',
  labelNames: ['operation', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

export const playerCommits = new Counter({
  name: 'lcds_player_commits_total',
  help: "Player runtime commits answered, by outcome (ok, refused: the player's 4xx, error: 5xx)",
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const playerCommitDuration = new Histogram({
  name: 'lcds_player_commit_duration_seconds',
  help: 'Time to answer a runtime commit',
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

export const lrsStatementsStored = new Counter({
  name: 'lcds_lrs_statements_stored_total',
  help: 'xAPI statements stored in the LRS (by clients, the player and statement pipes)',
  registers: [metricsRegistry],
});

export const jobRuns = new Counter({
  name: 'lcds_job_runs_total',
  help: 'Job attempts run by this process, by queue and outcome (completed, retry, failed, lost)',
  labelNames: ['queue', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const jobDuration = new Histogram({
  name: 'lcds_job_duration_seconds',
  help: 'Duration of job attempts run by this process, by queue and outcome',
  labelNames: ['queue', 'outcome'] as const,
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800],
  registers: [metricsRegistry],
});

/** Filled at scrape time by collectors registered by the modules that know the figures (jobs, database pool). */
export const jobsByState = new Gauge({
  name: 'lcds_jobs',
  help: 'Jobs stored, by queue and state (queued, running, completed, failed), installation-wide',
  labelNames: ['queue', 'state'] as const,
  registers: [metricsRegistry],
});

export const dbPool = new Gauge({
  name: 'lcds_db_pool_connections',
  help: "This process's database connections, by state (open, idle, waiting: requests queued for a connection)",
  labelNames: ['state'] as const,
  registers: [metricsRegistry],
});

/** Work done before each scrape (reading counts from the database, pool sizes). */
const collectors = new Set<() => Promise<void> | void>();
export function onScrape(collect: () => Promise<void> | void): () => void {
  collectors.add(collect);
  return () => collectors.delete(collect);
}

export async function scrape(): Promise<string> {
  await Promise.all([...collectors].map(async (c) => c()));
  return metricsRegistry.metrics();
}

/** The request's operation, set by the authorization guard once Nest has routed it (the handler's name = operationId). */
export interface OperationTagged {
  lcdsOperation?: string;
}

const operations = new WeakMap<object, string>();
/**
 * The metrics' name of a route handler: its OpenAPI operationId (@ApiOperation), else the handler's name (the
 * operationId the document derives; for pages, their handler), looked up once per handler.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- what Nest's ExecutionContext.getHandler() answers
export function operationOf(handler: Function): string {
  let name = operations.get(handler);
  if (name === undefined) {
    const declared = (Reflect.getMetadata('swagger/apiOperation', handler) as { operationId?: string } | undefined)?.operationId;
    name = declared ?? handler.name;
    operations.set(handler, name);
  }
  return name;
}

/**
 * Counts an answer and its latency, called once the response is done (see http/request-entry: one listener per
 * request serves the metrics and the request log). The labels are read then, after the guard named the operation.
 * Requests no route matched count as `unmatched` (a scanner's 404s stay one series); a request whose client went
 * away before the answer was sent is not counted.
 */
export function countRequest(req: IncomingMessage & OperationTagged, res: ServerResponse, startedNs: bigint, endedNs: bigint): void {
  if (!res.writableFinished) return;
  const operation = req.lcdsOperation ?? 'unmatched';
  const status = String(res.statusCode);
  httpRequests.inc({ operation, method: req.method ?? 'GET', status });
  httpDuration.observe({ operation, status }, Number(endedNs - startedNs) / 1e9);
}
