import { Injectable } from '@nestjs/common';
import type { LrsLaunchGrant } from './lrs-launch-tokens';
import type { Json } from './statement-keys';

/**
 * What runs the sessions behind launch tokens that name one (cmi5: the player's cmi5 sessions). The LRS does not know
 * the player; the player registers its handler here (as XapiProgress's applier).
 */
export interface LaunchSessionHandler {
  /** Throws an UnauthorizedError when the token's session is over (terminated, abandoned, replaced). */
  live(grant: LrsLaunchGrant): Promise<void>;
  /**
   * Stores statements the session's content sends: refuses them (ForbiddenError, naming the rule) when they break
   * the session's rules, else calls `store` and records what they change. Returns what `store` returned.
   */
  statements(grant: LrsLaunchGrant, statements: Array<Record<string, Json>>, store: () => Promise<string[]>): Promise<string[]>;
  /** The session's content reads a document (State: 'state', Agent Profile: 'agent'), e.g. cmi5 learner preferences before initialized. */
  documentRead(grant: LrsLaunchGrant, kind: string, id: string): Promise<void>;
  /** Statements sent with a token that logs (an xAPI launch capturing history): stored (with the ids stored), or refused and why. */
  logged(grant: LrsLaunchGrant, statements: Array<Record<string, Json>>, outcome: string, ids?: string[]): Promise<void>;
}

/** The registry of the launch-session handler (one: the player's). */
@Injectable()
export class LaunchSessions {
  private handler: LaunchSessionHandler | null = null;

  register(handler: LaunchSessionHandler): void {
    this.handler = handler;
  }

  async live(grant: LrsLaunchGrant): Promise<void> {
    if (grant.session && this.handler) await this.handler.live(grant);
  }

  async documentRead(grant: LrsLaunchGrant, kind: string, id: string): Promise<void> {
    if (grant.session && this.handler) await this.handler.documentRead(grant, kind, id);
  }

  statements(grant: LrsLaunchGrant | undefined, statements: Array<Record<string, Json>>, store: () => Promise<string[]>): Promise<string[]> {
    if (grant?.session && this.handler) return this.handler.statements(grant, statements, store);
    if (grant?.log && this.handler) return this.logging(this.handler, grant, statements, store);
    return store();
  }

  private async logging(handler: LaunchSessionHandler, grant: LrsLaunchGrant, statements: Array<Record<string, Json>>, store: () => Promise<string[]>): Promise<string[]> {
    let ids: string[];
    try {
      ids = await store();
    } catch (err) {
      await handler.logged(grant, statements, `refused: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
    await handler.logged(grant, statements, 'stored', ids);
    return ids;
  }
}
