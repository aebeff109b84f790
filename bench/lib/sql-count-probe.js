/* eslint-disable */
// Preloaded into the service (node -r bench/lib/sql-count-probe.js) by bench:dispatch with BENCH_SQL_COUNT=1:
// counts the SQL statements the service runs (better-sqlite3 statement runs, mysql2 query/execute), by statement
// text, and writes the counts as JSON to $LCDS_SQL_COUNT_FILE on SIGUSR2 (the benchmark takes differences).
'use strict';
const { renameSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const counts = new Map();
/** SQLite only (synchronous): time spent in each statement, ms. */
const times = new Map();
const norm = (sql) => String(sql).replace(/\s+/g, ' ').replace(/\?(, ?\?)+/g, '?…').slice(0, 160);
const count = (sql) => {
  const k = norm(sql);
  counts.set(k, (counts.get(k) || 0) + 1);
};
const patched = new Set();
const origLoad = Module._load;
Module._load = function (request, parent, isMain) {
  const m = origLoad.apply(this, arguments);
  if (request === 'better-sqlite3' && !patched.has('sqlite')) {
    patched.add('sqlite');
    const prepare = m.prototype.prepare;
    m.prototype.prepare = function (sql) {
      const stmt = prepare.apply(this, arguments);
      const proto = Object.getPrototypeOf(stmt);
      if (!proto.__counted) {
        proto.__counted = true;
        for (const name of ['run', 'get', 'all', 'iterate']) {
          const orig = proto[name];
          proto[name] = function () {
            count(this.source);
            const t0 = process.hrtime.bigint();
            try {
              return orig.apply(this, arguments);
            } finally {
              const k = norm(this.source);
              times.set(k, (times.get(k) || 0) + Number(process.hrtime.bigint() - t0) / 1e6);
            }
          };
        }
      }
      return stmt;
    };
    const exec = m.prototype.exec;
    m.prototype.exec = function (sql) {
      count(sql);
      const t0 = process.hrtime.bigint();
      try {
        return exec.apply(this, arguments);
      } finally {
        const k = norm(sql);
        times.set(k, (times.get(k) || 0) + Number(process.hrtime.bigint() - t0) / 1e6);
      }
    };
  }
  if (request === 'mysql2' && !patched.has('mysql')) {
    patched.add('mysql');
    // The connections' base class (mysql2's exports map hides lib/): the prototype above Connection's.
    const proto = Object.getPrototypeOf(m.Connection.prototype);
    for (const name of ['query', 'execute']) {
      const orig = proto[name];
      proto[name] = function (sql) {
        count(typeof sql === 'object' && sql ? sql.sql : sql);
        return orig.apply(this, arguments);
      };
    }
  }
  return m;
};
process.on('SIGUSR2', () => {
  const file = process.env.LCDS_SQL_COUNT_FILE || '/tmp/lcds-sql-count.json';
  writeFileSync(`${file}.tmp`, JSON.stringify({ at: Date.now(), counts: Object.fromEntries(counts), times: Object.fromEntries(times) }));
  renameSync(`${file}.tmp`, file);
});
