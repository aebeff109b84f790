/** What the cmi5 / xAPI relay page needs: the player, the launch's progress, and the client LMS's LRS. */
export interface XapiRelayConfig {
  mode: 'cmi5' | 'xapi';
  playerUrl: string;
  status: string;
  every: number;
  endpoint: string;
  /** cmi5: the LMS's fetch URL (one POST gives the auth token). */
  fetchUrl?: string;
  /** xAPI (Tin Can launch): the LRS's Authorization value as given. */
  auth?: string;
  actor: unknown;
  registration?: string;
  activityId: string;
}

const scriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

/**
 * The relay of a cmi5 AU or xAPI activity: the player in a frame, the launch's progress polled (every
 * DispatchPollingFrequency ms) and reported to the client LMS's LRS as statements. cmi5: the auth token from the fetch
 * URL, LMS.LaunchData read (context template, launch mode, mastery score, returnURL), then initialized, completed,
 * passed or failed (Normal launch mode only; cmi5 and moveOn categories, masteryscore), terminated at the exit (or when
 * the window goes). xAPI: attempted, completed, passed or failed, terminated, with the launch's auth.
 */
export function xapiRelayPage(nonce: string, cfg: XapiRelayConfig): string {
  const script = `var cfg = ${scriptJson(cfg)};
var CMI5 = 'https://w3id.org/xapi/cmi5/context/categories/cmi5', MOVEON = 'https://w3id.org/xapi/cmi5/context/categories/moveon', MASTERY = 'https://w3id.org/xapi/cmi5/context/extensions/masteryscore';
var auth = cfg.auth, launchData = {}, sent = {}, queue = Promise.resolve(), started = Date.now(), done = false, live = false, timer = 0;
var player = document.getElementById('lcds-player'), note = document.getElementById('lcds-message');
var base = /\\/$/.test(cfg.endpoint) ? cfg.endpoint : cfg.endpoint + '/';
function headers(json) { var h = { 'X-Experience-API-Version': '1.0.3', Authorization: auth }; if (json) h['Content-Type'] = 'application/json'; return h; }
function uuid() {
  var b = new Uint8Array(16); crypto.getRandomValues(b); b[6] = (b[6] & 15) | 64; b[8] = (b[8] & 63) | 128;
  var h = Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join('');
  return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
}
function duration() { return 'PT' + Math.max(0, Math.round((Date.now() - started) / 10) / 100) + 'S'; }
function statement(verb, result, moveOn) {
  var context = JSON.parse(JSON.stringify(launchData.contextTemplate || {}));
  if (cfg.registration) context.registration = cfg.registration;
  if (cfg.mode === 'cmi5') {
    var ca = context.contextActivities = context.contextActivities || {};
    ca.category = (ca.category || []).concat([{ id: CMI5 }], moveOn ? [{ id: MOVEON }] : []);
    if ((verb === 'passed' || verb === 'failed') && typeof launchData.masteryScore === 'number') { context.extensions = context.extensions || {}; context.extensions[MASTERY] = launchData.masteryScore; }
  }
  var s = { id: uuid(), actor: cfg.actor, verb: { id: 'http://adlnet.gov/expapi/verbs/' + verb, display: { 'en-US': verb } }, object: { id: cfg.activityId, objectType: 'Activity' }, context: context, timestamp: new Date().toISOString() };
  if (result) s.result = result;
  return s;
}
function send(verb, result, moveOn, keepalive) {
  var body = JSON.stringify(statement(verb, result, moveOn));
  queue = queue.then(function () {
    return fetch(base + 'statements', { method: 'POST', headers: headers(true), body: body, keepalive: !!keepalive }).then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); })
      .catch(function (e) { console.warn('LCDS: the ' + verb + ' statement was not stored: ' + e.message); });
  });
  return queue;
}
function report(p) {
  if (!p || (cfg.mode === 'cmi5' && launchData.launchMode && launchData.launchMode !== 'Normal')) return;
  if (p.completion === 'COMPLETED' && !sent.completed) { sent.completed = 1; send('completed', { completion: true, duration: duration() }, true); }
  if ((p.success === 'PASSED' || p.success === 'FAILED') && !sent.passed && !sent.failed) {
    var verb = p.success === 'PASSED' ? 'passed' : 'failed', result = { success: verb === 'passed', duration: duration() };
    sent[verb] = 1;
    if (typeof p.score === 'number') result.score = { scaled: p.score };
    send(verb, result, verb === 'passed');
  }
}
function poll() {
  return fetch(cfg.status, { cache: 'no-store' }).then(function (r) { return r.ok ? r.json() : null; }).then(report, function () {});
}
function terminate(keepalive) {
  return send('terminated', { duration: duration() }, false, keepalive);
}
function start() {
  if (cfg.mode !== 'cmi5') return Promise.resolve();
  return fetch(cfg.fetchUrl, { method: 'POST' }).then(function (r) { return r.json(); }).then(function (j) {
    if (!j || !j['auth-token']) throw new Error((j && j['error-text']) || 'the learning system gave no auth token');
    auth = 'Basic ' + j['auth-token'];
    var q = '?stateId=LMS.LaunchData&activityId=' + encodeURIComponent(cfg.activityId) + '&agent=' + encodeURIComponent(JSON.stringify(cfg.actor)) + '&registration=' + encodeURIComponent(cfg.registration);
    return fetch(base + 'activities/state' + q, { headers: headers(false) }).then(function (r) { return r.ok ? r.json() : {}; }).then(function (d) { launchData = d || {}; });
  });
}
window.addEventListener('message', function (e) {
  if (e.origin !== location.origin || e.source !== player.contentWindow || !e.data || e.data.lcdsDispatchExit !== 1 || done || !live) return;
  done = true;
  clearInterval(timer);
  poll().then(function () { return terminate(false); }).then(function () {
    if (cfg.mode === 'cmi5' && /^https?:\\/\\//i.test(launchData.returnURL || '')) location.assign(launchData.returnURL);
  });
});
window.addEventListener('pagehide', function () { if (live && !done) { done = true; terminate(true); } });
start().then(function () {
  live = true;
  send(cfg.mode === 'cmi5' ? 'initialized' : 'attempted');
  player.src = cfg.playerUrl;
  timer = setInterval(function () { if (!done) poll(); }, cfg.every);
}, function (e) { note.textContent = 'The course could not start: ' + e.message; note.style.display = 'block'; player.style.display = 'none'; });`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Course</title><style>html,body{margin:0;height:100%}#lcds-player{border:0;width:100%;height:100%;display:block}#lcds-message{display:none;font:16px/1.5 system-ui,sans-serif;margin:2em;max-width:40em}</style></head><body><p id="lcds-message" role="alert"></p><iframe id="lcds-player" title="Course" allow="fullscreen; autoplay"></iframe><script nonce="${nonce}">${script}</script></body></html>`;
}
