import type { LaunchRefusal } from './dispatch-launches';

const html = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const scriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

export const REFUSALS: Record<LaunchRefusal, { status: number; text: string }> = {
  invalid: { status: 400, text: 'This course link is not valid. Please ask the administrator of your learning system.' },
  expired: { status: 403, text: 'This launch has expired. Please launch the course again.' },
  replayed: { status: 403, text: 'This launch was already used. Please launch the course again.' },
  disabled: { status: 403, text: 'This course is not available at the moment.' },
  dispatchExpired: { status: 403, text: 'This course is no longer available: its access has expired.' },
  capReached: { status: 403, text: 'This course has reached its maximum number of learners.' },
  noNew: { status: 403, text: 'This course does not accept new learners.' },
  unavailable: { status: 404, text: 'This course is no longer available.' },
};

const STYLE = 'html,body{margin:0;height:100%}body{font:16px/1.5 system-ui,sans-serif}main{margin:2em;max-width:40em}#lcds-player{border:0;width:100%;height:100%;display:block}';

/** A plain page saying one thing (a refused launch, the end of a course). */
export function messagePage(text: string, nonce?: string, script?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Course</title><style>${STYLE}</style></head><body><main><p role="alert">${html(text)}</p></main>${
    nonce && script ? `<script nonce="${nonce}">${script}</script>` : ''
  }</body></html>`;
}

/**
 * The page the client LMS frames: the player in a frame of its own, and the relay that polls the launch's progress
 * (every DispatchPollingFrequency ms) and posts it to the LMS's page, on the LMS's origin only; when the player
 * leaves the course (its exit page says so, from LCDS's origin), a last poll is posted as the exit.
 */
export function bridgePage(nonce: string, cfg: { playerUrl: string; status: string; target: string; every: number }): string {
  const script = `var cfg = ${scriptJson(cfg)};
var last = '', done = false, player = document.getElementById('lcds-player');
function post(kind, p) { parent.postMessage({ lcdsDispatch: 1, kind: kind, progress: p }, cfg.target); }
function poll(final) {
  return fetch(cfg.status, { cache: 'no-store' }).then(function (r) { return r.ok ? r.json() : null; }).then(function (p) {
    if (!p) { if (final) post('exit', null); return; }
    var s = JSON.stringify(p);
    if (final) post('exit', p); else if (s !== last) post('progress', p);
    last = s;
  }, function () { if (final) post('exit', null); });
}
var timer = setInterval(function () { if (!done) poll(false); }, cfg.every);
window.addEventListener('message', function (e) {
  if (e.origin !== location.origin || e.source !== player.contentWindow || !e.data || e.data.lcdsDispatchExit !== 1 || done) return;
  done = true;
  clearInterval(timer);
  poll(true);
});
player.src = cfg.playerUrl;
poll(false);`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Course</title><style>${STYLE}</style></head><body><iframe id="lcds-player" title="Course" allow="fullscreen; autoplay"></iframe><script nonce="${nonce}">${script}</script></body></html>`;
}

/** Where the player goes when the learner leaves: tells the relay (same origin) the course ended. */
export const EXIT_SCRIPT = `if (parent !== window) parent.postMessage({ lcdsDispatchExit: 1 }, location.origin);`;
export const EXIT_TEXT = 'You have left the course. You may close this window.';

/**
 * An AICC AU's page: the player in a frame; when the launch's progress changes (polled every DispatchPollingFrequency
 * ms) it asks LCDS to send it to the LMS (HACP PutParam, server to server); at the player's exit, PutParam and ExitAU.
 */
export function aiccRelayPage(nonce: string, cfg: { playerUrl: string; status: string; relay: string; every: number }): string {
  const script = `var cfg = ${scriptJson(cfg)};
var last = '', done = false, player = document.getElementById('lcds-player');
function relay(exit) { return fetch(cfg.relay + (exit ? '?exit=1' : ''), { method: 'POST', keepalive: !!exit }).catch(function () {}); }
function poll() {
  return fetch(cfg.status, { cache: 'no-store' }).then(function (r) { return r.ok ? r.json() : null; }).then(function (p) {
    var s = JSON.stringify(p);
    if (p && s !== last) { last = s; return relay(false); }
  }, function () {});
}
var timer = setInterval(function () { if (!done) poll(); }, cfg.every);
function exit() { if (done) return; done = true; clearInterval(timer); relay(true); }
window.addEventListener('message', function (e) {
  if (e.origin === location.origin && e.source === player.contentWindow && e.data && e.data.lcdsDispatchExit === 1) exit();
});
window.addEventListener('pagehide', exit);
player.src = cfg.playerUrl;`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Course</title><style>${STYLE}</style></head><body><iframe id="lcds-player" title="Course" allow="fullscreen; autoplay"></iframe><script nonce="${nonce}">${script}</script></body></html>`;
}
