import { escapeHtml } from './player-errors';
import type { PlayerPageModel } from './player.service';

/** JSON inside a <script> element: nothing in it may close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

/** The player page: the SCO in a same-origin iframe, the SCORM API (scorm-again) on this window. */
export function playerPage(model: PlayerPageModel, autocommitSeconds: number): string {
  const config = {
    version: model.version,
    activityId: model.activityId,
    contentUrl: `content/${model.contentHref.split('/').map((p) => p).join('/')}`,
    commitUrl: 'commit',
    cmi: model.cmi,
    tracking: model.tracking,
    redirectOnExitUrl: model.redirectOnExitUrl,
    autocommitSeconds,
  };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(model.title)}</title>
<style>html,body{margin:0;height:100%;overflow:hidden;font:15px system-ui,sans-serif}#lcds-sco{border:0;width:100%;height:100%;display:block}
#lcds-message{display:none;position:fixed;left:0;right:0;top:0;padding:.6em 1em;background:#a40000;color:#fff;z-index:10}
#lcds-done{display:none;max-width:40em;margin:4em auto;padding:0 1em}</style>
${model.cssUrl ? `<link rel="stylesheet" href="${escapeHtml(model.cssUrl)}">` : ''}
<script src="/player/assets/scorm-again.min.js"></script>
<script id="lcds-config" type="application/json">${scriptJson(config)}</script>
<script src="/player/assets/player.js"></script>
</head><body>
<div id="lcds-message" role="alert"></div>
<div id="lcds-done"><h1>You have left the course</h1><p>Your progress has been saved. You may close this window.</p></div>
<iframe id="lcds-sco" title="${escapeHtml(model.title)}"></iframe>
</body></html>`;
}

/**
 * The player's script (served as /player/assets/player.js). It creates window.API (SCORM 1.2) or window.API_1484_11
 * (SCORM 2004) with scorm-again, loaded with the stored data model, and sends every commit to the server itself
 * (scorm-again's httpService hook): each commit carries a sequence number, a failed one is retried with backoff
 * (the newest state wins), repeated failures show a message, and while the page unloads commits go out with
 * fetch keepalive so the last state survives closing the tab.
 */
export const PLAYER_SCRIPT = String.raw`(function () {
  'use strict';
  var cfg = JSON.parse(document.getElementById('lcds-config').textContent);
  var seq = 0, pending = null, sending = false, failures = 0, unloading = false, finished = false, fatal = false;
  function $(id) { return document.getElementById(id); }
  function show(text) { var m = $('lcds-message'); m.textContent = text; m.style.display = 'block'; }
  function hide() { $('lcds-message').style.display = 'none'; }

  function flatten(value, prefix, out) {
    if (value === null || value === undefined) return out;
    if (typeof value === 'object') {
      for (var k in value) {
        if (!Object.prototype.hasOwnProperty.call(value, k) || k.charAt(0) === '_' || k === 'childArray' || k === 'jsonString') continue;
        flatten(value[k], prefix ? prefix + '.' + k : k, out);
      }
      return out;
    }
    out[prefix] = String(value);
    return out;
  }
  function normalise(obj) {
    var flat = {};
    if (!obj || typeof obj !== 'object') return flat;
    for (var k in obj) {
      if (!Object.prototype.hasOwnProperty.call(obj, k)) continue;
      if (k.indexOf('cmi.') === 0) { if (obj[k] !== null && typeof obj[k] !== 'object') flat[k] = String(obj[k]); else flatten(obj[k], k, flat); }
      else if (k === 'cmi') flatten(obj[k], 'cmi', flat);
    }
    return flat;
  }
  function snapshot(params) {
    var flat = {};
    try { flat = normalise(api.renderCMIToJSONObject()); } catch (e) { /* keep what the commit carries */ }
    var given = normalise(params);
    for (var k in given) flat[k] = given[k];
    return flat;
  }

  function post(payload, keepalive) {
    return fetch(cfg.commitUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload), keepalive: !!keepalive, credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) {
        if (r.status === 400 || r.status === 410) { var e = new Error('refused ' + r.status); e.fatal = true; throw e; }
        if (!r.ok) throw new Error('HTTP ' + r.status);
        return r.json();
      });
  }
  function flush() {
    if (sending || !pending || fatal) return;
    var p = pending; pending = null; sending = true;
    post(p, unloading).then(function () {
      sending = false; failures = 0; hide();
      if (pending) flush(); else afterSettled();
    }, function (err) {
      sending = false;
      if (err && err.fatal) { fatal = true; show('This session has ended; your latest progress could not be saved. Launch the course again.'); return; }
      failures++;
      if (!pending) pending = p; // a newer commit supersedes this one (each carries the whole data model)
      if (failures >= 3) show('Your progress could not be saved (' + failures + ' attempts). Retrying; please keep this window open.');
      setTimeout(flush, Math.min(15000, 500 * Math.pow(2, failures - 1)));
    });
  }
  function commit(params, final) {
    if (!cfg.tracking) return;
    var payload = { seq: ++seq, activityId: cfg.activityId, cmi: snapshot(params), final: !!final };
    if (unloading) { post(payload, true).catch(function () {}); return; }
    pending = payload;
    flush();
  }
  var httpService = {
    processHttpRequest: function (url, params, immediate, apiLog, processListeners, metadata) {
      commit(params, !!(metadata && metadata.isTerminateCommit));
      return { result: true, errorCode: 0 };
    },
    updateSettings: function () {}
  };

  var settings = {
    autocommit: true,
    autocommitSeconds: cfg.autocommitSeconds,
    lmsCommitUrl: cfg.commitUrl,
    dataCommitFormat: 'flattened',
    sendFullCommit: true,
    httpService: httpService,
    logLevel: 5
  };
  var api = cfg.version === '1.2' ? new window.Scorm12API(settings) : new window.Scorm2004API(settings);
  api.loadFromFlattenedJSON(cfg.cmi, '');
  if (cfg.version === '1.2') window.API = api; else window.API_1484_11 = api;
  window.lcdsPlayer = { api: api, state: function () { return { seq: seq, pending: !!pending, sending: sending, failures: failures, finished: finished }; } };

  function afterSettled() {
    if (!finished || pending || sending || unloading) return;
    var target = cfg.redirectOnExitUrl;
    if (/^https?:/i.test(target)) { window.location.href = target; return; }
    if (target === 'blank') { window.location.href = 'about:blank'; return; }
    $('lcds-sco').style.display = 'none';
    $('lcds-done').style.display = 'block';
  }
  function onFinish() { finished = true; setTimeout(afterSettled, 0); }
  api.on(cfg.version === '1.2' ? 'LMSFinish' : 'Terminate', onFinish);

  function leaving() {
    if (unloading) return;
    unloading = true;
    // The SCO may still be running (tab closed mid-lesson): send its current state now, with keepalive.
    if (!finished && cfg.tracking) {
      var payload = { seq: ++seq, activityId: cfg.activityId, cmi: snapshot(null), final: true };
      if (pending) pending = null;
      post(payload, true).catch(function () {});
    } else if (pending) { var p = pending; pending = null; post(p, true).catch(function () {}); }
  }
  window.addEventListener('pagehide', leaving);
  window.addEventListener('beforeunload', function () { if (pending || sending) leaving(); });

  function start() { $('lcds-sco').src = cfg.contentUrl; }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start); else start();
})();
`;
