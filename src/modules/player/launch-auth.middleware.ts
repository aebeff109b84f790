import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { messagePage, PlayerError } from './player-errors';
import { PlayerLaunchAuth } from './player-launch-auth';

/** `/player/s/<token>/<rest>`: the session-scoped routes of the player controller. */
const SESSION_PATH = /^\/player\/s\/([^/?#]+)\/([^?#]*)/;

/**
 * Runs PlayerLaunchAuth's check before the player controller's session routes; a refusal is answered as the route
 * would answer its own errors: a plain page (the player page, return, media viewer), text (content), JSON (the rest).
 */
@Injectable()
export class LaunchAuthMiddleware implements NestMiddleware {
  constructor(private readonly auth: PlayerLaunchAuth) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const m = SESSION_PATH.exec(req.originalUrl);
    let token = '';
    try {
      token = m ? decodeURIComponent(m[1]) : '';
    } catch {
      token = '';
    }
    const pending = token ? this.auth.check(req, token) : null;
    if (!pending) {
      next();
      return;
    }
    const rest = m![2];
    pending.then(
      () => next(),
      (err: unknown) => {
        if (!(err instanceof PlayerError)) {
          next(err);
          return;
        }
        res.setHeader('Cache-Control', 'no-store');
        res.status(err.status);
        if (rest === '' || rest === 'return' || rest === 'media') res.type('html').send(messagePage(err.title, err.message));
        else if (rest.startsWith('content/')) res.type('text/plain').send(err.message);
        else res.json({ result: false, message: err.message });
      },
    );
  }
}
