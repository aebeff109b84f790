import { EventEmitter } from 'node:events';
import { dirname, join } from 'node:path';

/**
 * Pipelining for mysql2: statements written to the server one after the other without waiting for each other's
 * answers, answered in order. The MySQL protocol allows it (the server reads and runs a connection's commands in
 * order, answering each); mysql2 does not do it by itself: it writes a command only once the one before is answered,
 * so n statements cost n round trips, each a turn of the event loop (milliseconds when the loop is busy) and a
 * write and a read system call.
 *
 * Only statements answered by an OK or an ERR packet (INSERT, UPDATE, DELETE, SET, COMMIT, ROLLBACK) are pipelined:
 * their answers are one packet each. A prepared statement is pipelined only when it is prepared on the connection
 * already (its id is known); otherwise, and when mysql2's internals are not what this module expects, the statements
 * go the ordinary way, one after the other, with the same answers.
 *
 * It uses mysql2's internals (its packet classes, its connection's command queue, statement cache and sequence ids),
 * checked when loaded and on every connection: mysql2 is pinned by the lock file, and the tests run it on MariaDB.
 */

type Callback<T> = (err: Error | null, result: T) => void;

/** The OK packet of a statement: what mysql2 answers for a statement without a result set. */
export interface OkPacket {
  affectedRows: number;
  insertId: number;
  warningStatus?: number;
}

/** mysql2's prepared statement (its cache's entries). */
interface PreparedStatementInfo {
  id: number;
  parameters: unknown[];
}

/** The mysql2 packet the connection hands a command. */
interface Mysql2Packet {
  isError(): boolean;
  asError(encoding: string): Error & { sql?: string };
}

/** The parts of a mysql2 connection (lib/base/connection.js, 3.x) pipelining uses. */
export interface Mysql2Connection {
  execute(sql: string, values: unknown[], callback: Callback<unknown>): void;
  query(sql: string, callback: Callback<unknown>): void;
  addCommand(command: unknown): unknown;
  writePacket(packet: unknown): void;
  sequenceId: number;
  compressedSequenceId: number;
  clientEncoding: string;
  serverCapabilityFlags?: number;
  _isMariaDB?: boolean;
  _statements: { get(key: string): PreparedStatementInfo | undefined };
  stream: { cork(): void; uncork(): void };
  config: { charsetNumber: number; timezone: string; clientFlags: number; compress?: boolean };
  constructor: { statementKey?(options: { sql: string }): string };
}

interface Mysql2Packets {
  Execute: new (id: number, parameters: unknown[], charsetNumber: number, timezone: string, attributes: undefined, clientFlags: number, isMariaDB: boolean | undefined, parameterDefinitions: unknown[]) => { toPacket(sequenceId: number): { length(): number } };
  Query: new (sql: string, charsetNumber: number, attributes: undefined, clientFlags: number) => { toPacket(sequenceId: number): { length(): number } };
  ResultSetHeader: new (packet: Mysql2Packet, connection: Mysql2Connection) => OkPacket & { fieldCount: number };
}

/** mysql2's packet classes, or null when this mysql2 has not the ones pipelining was written for. */
const packets: Mysql2Packets | null = (() => {
  try {
    // Not part of mysql2's exports map: required by path, from where mysql2 itself resolves.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a file of a package, not a module import
    const loaded = require(join(dirname(require.resolve('mysql2')), 'lib', 'packets', 'index.js')) as Partial<Mysql2Packets>;
    return typeof loaded.Execute === 'function' && typeof loaded.Query === 'function' && typeof loaded.ResultSetHeader === 'function' ? (loaded as Mysql2Packets) : null;
  } catch {
    return null;
  }
})();

/** The largest packet one write carries (mysql2 splits longer ones, which changes the answer's sequence id). */
const MAX_PACKET = 16_777_215;

interface Queued {
  sql: string;
  /** Parameters of a prepared statement; undefined: a plain query. */
  values?: unknown[];
  resolve(ok: OkPacket): void;
  reject(err: Error): void;
}

/**
 * One mysql2 command carrying several statements: when the connection starts it, it writes all their packets at once
 * (one system call), then takes their answers in order, one packet each.
 */
class PipelinedStatements extends EventEmitter {
  private answered = 0;
  private started = false;

  constructor(
    private readonly queued: Queued[],
    private readonly written: Array<{ length(): number }>,
    private readonly packetClasses: Mysql2Packets,
  ) {
    super();
  }

  /** How many prepared statements it carries, not counting plain queries (transaction control): for whoever counts a connection's statements. */
  get pipelinedStatements(): number {
    return this.queued.filter((q) => q.values).length;
  }

  /** mysql2 calls it with no packet to start the command, then with each packet the server sends; true: done. */
  execute(packet: Mysql2Packet | undefined, connection: Mysql2Connection): boolean {
    if (!this.started) {
      this.started = true;
      connection.stream.cork();
      try {
        for (const p of this.written) {
          // Each statement is a command of its own: its packet is the first of a sequence, its answer the second.
          connection.sequenceId = 0;
          connection.compressedSequenceId = 0;
          connection.writePacket(p);
        }
      } finally {
        connection.stream.uncork();
      }
      connection.sequenceId = 1;
      return false;
    }
    const item = this.queued[this.answered++];
    if (packet!.isError()) {
      const err = packet!.asError(connection.clientEncoding);
      err.sql = item.sql;
      item.reject(err);
    } else {
      const header = new this.packetClasses.ResultSetHeader(packet!, connection);
      // A result set would be several packets: the rest of the pipeline's answers could not be told apart. Only
      // statements without one are queued; a server answering otherwise breaks the connection (mysql2 closes it).
      if (header.fieldCount !== 0) {
        const err = new Error(`pipelined statement answered with a result set: ${item.sql.slice(0, 80)}`);
        item.reject(err);
        throw err;
      }
      item.resolve(header);
    }
    // The next answer is the second packet of its own statement's sequence.
    connection.sequenceId = 1;
    if (this.answered < this.queued.length) return false;
    this.emit('end');
    return true;
  }

  /** mysql2 calls it when the connection fails (closed, protocol error): every statement not answered fails. */
  onResult(err: Error): void {
    while (this.answered < this.queued.length) this.queued[this.answered++].reject(err);
  }
}

/**
 * Statements of one mysql2 connection: `send` queues a statement without a result set and `flush` (also run by
 * itself once the current synchronous code has queued what it has) writes the queue as one pipeline; `execute` runs a
 * statement that answers rows, after what is queued. Every statement runs in the order it was given.
 */
export class MysqlPipeline {
  private queue: Queued[] = [];
  private scheduled = false;

  constructor(private readonly conn: Mysql2Connection) {}

  /** A statement without a result set (`values`: a prepared statement's parameters; none: a plain query). */
  send(sql: string, values?: unknown[]): Promise<OkPacket> {
    return new Promise<OkPacket>((resolve, reject) => {
      this.queue.push({ sql, values, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        queueMicrotask(() => this.flush());
      }
    });
  }

  /** A prepared statement answering rows (a SELECT), after the statements queued before it. */
  execute<R>(sql: string, values: unknown[]): Promise<R> {
    this.flush();
    return new Promise<R>((resolve, reject) => this.conn.execute(sql, values, (err, result) => (err ? reject(err) : resolve(result as R))));
  }

  /** Writes the queued statements: one pipeline when they can be, else one after the other. */
  flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    const queued = this.queue;
    this.queue = [];
    let written: Array<{ length(): number }> | null = null;
    try {
      written = queued.length > 1 ? this.packetsOf(queued) : null;
    } catch {
      // A parameter the packet cannot encode: mysql2's own execute reports it, below, for its statement alone.
    }
    if (written) {
      this.conn.addCommand(new PipelinedStatements(queued, written, packets!));
      return;
    }
    for (const q of queued) {
      const done: Callback<unknown> = (err, result) => (err ? q.reject(err) : q.resolve(result as OkPacket));
      try {
        if (q.values) this.conn.execute(q.sql, q.values, done);
        else this.conn.query(q.sql, done);
      } catch (err) {
        // mysql2 throws at once for a parameter it refuses (undefined, a function).
        q.reject(err as Error);
      }
    }
  }

  /** The statements' packets, or null when they cannot be pipelined (a statement not prepared yet, an unknown mysql2). */
  private packetsOf(queued: Queued[]): Array<{ length(): number }> | null {
    const conn = this.conn;
    const statementKey = conn.constructor.statementKey;
    if (!packets || typeof statementKey !== 'function' || typeof conn.addCommand !== 'function' || typeof conn.writePacket !== 'function' || !conn._statements || conn.config.compress) return null;
    const statements: Array<PreparedStatementInfo | null> = [];
    for (const q of queued) {
      if (!q.values) {
        statements.push(null);
        continue;
      }
      const statement = conn._statements.get(statementKey({ sql: q.sql }));
      if (!statement) return null;
      statements.push(statement);
    }
    const clientFlags = conn.config.clientFlags & (conn.serverCapabilityFlags ?? 0);
    const written = queued.map((q, i) => {
      const statement = statements[i];
      return statement
        ? new packets.Execute(statement.id, q.values!, conn.config.charsetNumber, conn.config.timezone, undefined, clientFlags, conn._isMariaDB, statement.parameters).toPacket(1)
        : new packets.Query(q.sql, conn.config.charsetNumber, undefined, clientFlags).toPacket(1);
    });
    return written.some((p) => p.length() >= MAX_PACKET) ? null : written;
  }
}
