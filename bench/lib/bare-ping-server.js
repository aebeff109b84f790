'use strict';
// The baseline of the benchmarks: a bare Node `http` server answering GET /api/v2/ping the way LCDS does
// (same JSON, same content type), with no framework, no auth and no logging. Plain JavaScript on purpose:
// it runs with plain `node`, exactly like the service's compiled dist/main.js.
// Env: PORT, HOST (127.0.0.1). Prints one JSON line {"msg":"listening","port":…} when ready.
const http = require('node:http');

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && (req.url === '/api/v2/ping' || req.url.startsWith('/api/v2/ping?'))) {
    const body = JSON.stringify({ apiMessage: 'pong', currentTime: new Date().toISOString() });
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  res.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end('{"message":"not found"}');
});

server.listen(Number(process.env.PORT || 0), process.env.HOST || '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ msg: 'listening', port: server.address().port }) + '\n');
});

const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
