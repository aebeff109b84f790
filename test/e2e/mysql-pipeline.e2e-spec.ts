import { createPool, Pool, PoolConnection } from 'mysql2';
import { Mysql2Connection, MysqlPipeline } from '../../src/platform/database/mysql-pipeline';
import { createTestStack, isProductionStack, TestStack } from '../support/test-stack';

/**
 * MysqlPipeline on a real MySQL/MariaDB (production stack only): statements sent in one turn go to the server
 * together and come back answered one by one, in order; a failure stays with its statement.
 */
(isProductionStack() ? describe : describe.skip)('MySQL pipelining (MysqlPipeline)', () => {
  let stack: TestStack;
  let pool: Pool;

  const connection = () => new Promise<PoolConnection>((resolve, reject) => pool.getConnection((err, conn) => (err ? reject(err) : resolve(conn))));
  const pipelineOf = (conn: PoolConnection) => new MysqlPipeline(conn as unknown as Mysql2Connection);
  const insert = 'INSERT INTO pipelined (k, v) VALUES (?, ?)';

  /** What the connection's socket did, in order: 'w' a write, 'r' data read. */
  function wireOf(conn: PoolConnection): string[] {
    const events: string[] = [];
    const stream = (conn as unknown as { stream: { write: (...args: unknown[]) => boolean; prependListener(event: 'data', listener: () => void): void } }).stream;
    const write = stream.write.bind(stream);
    stream.write = (...args: unknown[]) => {
      events.push('w');
      return write(...args);
    };
    stream.prependListener('data', () => events.push('r'));
    return events;
  }

  beforeAll(async () => {
    stack = await createTestStack();
    pool = createPool({ uri: stack.env.DATABASE_URL, connectionLimit: 4 });
    await pool.promise().query('CREATE TABLE pipelined (id INT AUTO_INCREMENT PRIMARY KEY, k VARCHAR(20) NOT NULL UNIQUE, v TEXT NOT NULL)');
  });

  afterAll(async () => {
    await pool?.promise().end();
    await stack?.destroy();
  });

  it('writes the statements of one turn before the first answer comes back, and answers each in order', async () => {
    const conn = await connection();
    try {
      const wire = wireOf(conn);
      const pipe = pipelineOf(conn);
      // Not prepared on this connection yet: they go one after the other (and are prepared by it).
      const first = await Promise.all([pipe.send(insert, ['a1', 'x']), pipe.send(insert, ['a2', 'y'])]);
      expect(first.map((ok) => ok.affectedRows)).toEqual([1, 1]);
      expect(wire.join('').startsWith('wr')).toBe(true);
      wire.length = 0;
      // Prepared now: all five, and a plain query, are written before anything is read.
      const values = ['b1', 'b2', 'b3', 'b4', 'b5'];
      const answers = await Promise.all([pipe.send('SET @pipelined = 1'), ...values.map((k) => pipe.send(insert, [k, 'v'.repeat(20_000)]))]);
      expect(wire.indexOf('r')).toBeGreaterThanOrEqual(6);
      expect(wire.slice(0, 6)).toEqual(new Array(6).fill('w'));
      expect(answers.slice(1).map((ok) => ok.affectedRows)).toEqual([1, 1, 1, 1, 1]);
      // Each its own insert id, in the order sent.
      const ids = answers.slice(1).map((ok) => ok.insertId);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(5);
      const [rows] = await pool.promise().query<any[]>('SELECT id, k, LENGTH(v) AS n FROM pipelined WHERE k LIKE ? ORDER BY id', ['b%']);
      expect(rows.map((r) => [r.id, r.k, Number(r.n)])).toEqual(values.map((k, i) => [ids[i], k, 20_000]));
    } finally {
      conn.release();
    }
  });

  it('fails a statement alone: the ones after it still run, and the connection goes on in step', async () => {
    const conn = await connection();
    const warnings: unknown[] = [];
    const consoleError = jest.spyOn(console, 'error').mockImplementation((...args) => void warnings.push(args));
    try {
      const pipe = pipelineOf(conn);
      await pipe.send(insert, ['c0', 'prepare']);
      const results = await Promise.allSettled([pipe.send(insert, ['c1', 'v']), pipe.send(insert, ['c0', 'duplicate']), pipe.send(insert, ['c2', 'v'])]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'ER_DUP_ENTRY', sql: insert });
      // A statement answering rows goes after what was queued before it, and sees it.
      const queued = pipe.send(insert, ['c3', 'v']);
      const rows = await pipe.execute<Array<{ k: string }>>('SELECT k FROM pipelined WHERE k LIKE ? ORDER BY k', ['c%']);
      expect(rows.map((r) => r.k)).toEqual(['c0', 'c1', 'c2', 'c3']);
      await queued;
      // Still in step: more pipelines and plain statements on the same connection.
      expect((await Promise.all([pipe.send('SET @a = 1'), pipe.send(insert, ['c4', 'v'])]))[1].affectedRows).toBe(1);
      expect(warnings).toEqual([]);
    } finally {
      consoleError.mockRestore();
      conn.release();
    }
  });

  it('fails every statement not answered yet when the connection breaks, and one answering rows breaks it rather than mix answers up', async () => {
    const killed = await connection();
    const pipe = pipelineOf(killed);
    await pipe.send(insert, ['d0', 'prepare']);
    const threadId = (killed as unknown as { threadId: number }).threadId;
    const pending = Promise.allSettled([pipe.send('DO SLEEP(5)'), pipe.send(insert, ['d1', 'v']), pipe.send(insert, ['d2', 'v'])]);
    await new Promise((r) => setTimeout(r, 300));
    await pool.promise().query(`KILL CONNECTION ${threadId}`);
    const results = await pending;
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    killed.destroy();
    const [gone] = await pool.promise().query<any[]>('SELECT COUNT(*) AS n FROM pipelined WHERE k IN (?, ?)', ['d1', 'd2']);
    expect(Number(gone[0].n)).toBe(0);

    const misused = await connection();
    const misusedPipe = pipelineOf(misused);
    await misusedPipe.send(insert, ['e0', 'prepare']);
    const settled = await Promise.allSettled([misusedPipe.send(insert, ['e1', 'v']), misusedPipe.send('SELECT 1'), misusedPipe.send(insert, ['e2', 'v'])]);
    expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(String((settled[1] as PromiseRejectedResult).reason)).toMatch(/result set/);
    misused.destroy();
  });
});
