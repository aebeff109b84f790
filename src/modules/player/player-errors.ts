import type { Response } from 'express';

/** A learner-facing failure: rendered as a small HTML page (or JSON for the player's own requests), never a stack. */
export class PlayerError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
    /** A word the player page acts on (a 409 `concurrentLaunch` stops saving; a 410 `forcedExit` leaves). */
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'PlayerError';
  }
}

/** Answers the player page's own JSON request (`no-store`): what `run` returns, or a PlayerError as its status and message. */
export async function playerJson(res: Response, run: () => Promise<unknown>): Promise<void> {
  res.setHeader('Cache-Control', 'no-store');
  try {
    res.json(await run());
  } catch (err) {
    if (err instanceof PlayerError) res.status(err.status).json({ message: err.message });
    else throw err;
  }
}

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function messagePage(title: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:4em auto;padding:0 1em;color:#222}h1{font-size:1.4em}</style></head>
<body><h1>${escapeHtml(title)}</h1><p id="message">${escapeHtml(message)}</p></body></html>`;
}
