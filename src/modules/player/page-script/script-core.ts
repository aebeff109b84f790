/** Part of the player page's script (PLAYER_SCRIPT in player-page.ts, one function scope): the script's start: the configuration, the page's state, messages, and the data model as the server takes it (flattened cmi). */
export const SCRIPT_CORE = String.raw`(function () {
  'use strict';
  var cfg = JSON.parse(document.getElementById('lcds-config').textContent);
  var seq = 0, pending = null, sending = false, failures = 0, unloading = false, finished = false, fatal = false;
  var api = null, current = { activityId: cfg.activityId, title: cfg.title }, terminated = false, navRequest = null, busy = false;
  var nav = cfg.nav, waiters = [], T = cfg.strings, sq = cfg.seq, UI = cfg.ui || {}, lastStatus = {}, course = null, aiccExit = '';
  // sq.nav: the valid requests now (adl.nav.request_valid); sq.shown: what the buttons and table of contents offer
  // (PlayerLookaheadSequencerMode REALTIME follows every commit; ENABLED and DISABLED change at each delivery).
  if (sq) sq.shown = sq.nav;
  var windowed = /^NEW_WINDOW/.test(cfg.launchType || ''), popup = null, contentUrl = null, watcher = null, inflight = null;
  function $(id) { return document.getElementById(id); }
  // A message says what went wrong; a later successful save takes back only its own kind (a refused request stays said).
  var messageKind = null;
  /** PlayerTimeLimit: the session ended because the course's time ran out. */
  var timedOut = false;
  function show(text, kind) { var m = $('lcds-message'); m.textContent = text; m.style.display = 'block'; messageKind = kind || 'info'; }
  function hide(kind) { if (kind && messageKind !== kind) return; $('lcds-message').style.display = 'none'; messageKind = null; }

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
  function snapshot(a, params) {
    var flat = {};
    try { flat = normalise(a.renderCMIToJSONObject()); } catch (e) { /* keep what the commit carries */ }
    var given = normalise(params);
    for (var k in given) flat[k] = given[k];
    return flat;
  }

`;
