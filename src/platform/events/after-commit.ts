import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager, EntitySubscriberInterface, QueryRunner, TransactionCommitEvent, TransactionRollbackEvent } from 'typeorm';

interface Pending {
  /** The transaction depth (savepoints) the work was registered at. */
  depth: number;
  run: () => void;
}

/**
 * Work to do once a TypeORM transaction committed (the outermost one): a DataSource subscriber keeps it per query
 * runner, runs it after COMMIT, and drops it when the transaction (or the savepoint it was registered in) rolls back.
 */
@Injectable()
export class AfterCommit implements EntitySubscriberInterface {
  private readonly pending = new WeakMap<QueryRunner, Pending[]>();

  constructor(@InjectDataSource() dataSource: DataSource) {
    dataSource.subscribers.push(this);
  }

  /** Runs `work` once `manager`'s transaction commits; at once when `manager` is not in a transaction. */
  schedule(manager: EntityManager, work: () => void): void {
    const runner = manager.queryRunner;
    if (!runner?.isTransactionActive) {
      work();
      return;
    }
    const list = this.pending.get(runner) ?? [];
    list.push({ depth: transactionDepth(runner), run: work });
    this.pending.set(runner, list);
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    const runner = event.queryRunner;
    if (runner.isTransactionActive) return; // a savepoint was released: the work waits for the outer COMMIT
    const list = this.pending.get(runner);
    if (!list) return;
    this.pending.delete(runner);
    for (const item of list) item.run();
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    const runner = event.queryRunner;
    const list = this.pending.get(runner);
    if (!list) return;
    if (!runner.isTransactionActive) {
      this.pending.delete(runner);
      return;
    }
    // Rolled back to a savepoint: what was registered inside it is undone with it.
    const depth = transactionDepth(runner);
    this.pending.set(
      runner,
      list.filter((item) => item.depth <= depth),
    );
  }
}

function transactionDepth(runner: QueryRunner): number {
  return (runner as unknown as { transactionDepth?: number }).transactionDepth ?? 1;
}
