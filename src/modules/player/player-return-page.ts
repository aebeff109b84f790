import { escapeHtml } from './player-errors';

/** JSON inside a <script> element: nothing in it may close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * The page of a cmi5 AU's returnURL when the AU ran inside the player (AnyWindow: the player's frame, or the
 * player's content window): it hands the learner back to the player page, which takes the AU down and shows its
 * table of contents (or, for a one-AU course, ends the lesson and goes on to the link's redirectOnExitUrl at the top).
 * Not inside a player (a top-level window), it goes on to the redirectOnExitUrl itself, or says the course ended.
 */
export function returnPage(target: string | null, nonce: string): string {
  const title = 'You have left the course';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:4em auto;padding:0 1em;color:#222}h1{font-size:1.4em}</style>
<script nonce="${nonce}">(function () {
  var target = ${scriptJson(target)};
  function playerOf(w) { try { return w && w !== window && w.lcdsPlayer && typeof w.lcdsPlayer.auReturned === 'function' ? w.lcdsPlayer : null; } catch (e) { return null; } }
  var player = playerOf(window.parent) || playerOf(window.opener);
  if (player) { player.auReturned(); return; }
  if (target) location.replace(target);
})();</script></head>
<body><h1>${escapeHtml(title)}</h1><p id="message">The course has ended. You may close this window.</p></body></html>`;
}
