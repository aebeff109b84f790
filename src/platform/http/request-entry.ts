import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestLog } from '../logging/request-log';
import { countRequest, type OperationTagged } from '../metrics/metrics';
import { setBaseSecurityHeaders } from './security-headers';

/**
 * The first Express middleware, for every request: the base security headers, the request id and logger binding
 * (RequestLog), and one listener for the end of the response that counts it (metrics) and writes its request line.
 * One middleware and one listener instead of one of each per concern: every Express layer and listener is paid by
 * every request (bench:ping).
 */
export function requestEntry(log: RequestLog, apiPrefixes: readonly string[]) {
  return (req: IncomingMessage & OperationTagged, res: ServerResponse, next: () => void): void => {
    const url = req.url ?? '';
    setBaseSecurityHeaders(url, res, apiPrefixes);
    const started = process.hrtime.bigint();
    const id = log.logs(url) ? log.identify(req, res) : null;
    let done = false;
    // 'close' follows 'finish' on every response, and also ends one whose client went away; 'error' (a write
    // after the end) must have a listener or it would throw.
    const end = (): void => {
      if (done) return;
      done = true;
      const ended = process.hrtime.bigint();
      countRequest(req, res, started, ended);
      if (id !== null) log.completed(id, req, res, Math.round(Number(ended - started) / 1e6));
    };
    res.once('close', end);
    res.on('error', end);
    if (id === null) next();
    else log.bind(id, next);
  };
}
