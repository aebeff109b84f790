import { isAbsoluteUrl } from '../courses/packages/package-paths';
import { escapeHtml } from './player-errors';
import { playerStrings } from './player-strings';
import type { PlayerPageModel } from './player.service';

/** JSON inside a <script> element: nothing in it may close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

/** The page-relative URL of a launchable's href (the session's content route); an absolute URL (content hosted elsewhere) as it is. */
export const contentUrlOf = (href: string) => (isAbsoluteUrl(href) ? href : `content/${href}`);
/** The page-relative URL of the player's viewer of a media course (it plays content/<file>). */
export const MEDIA_VIEWER_URL = 'media';

/**
 * The player page: the SCO in a same-origin iframe, the SCORM API (scorm-again) on this window. A course with
 * more than one launchable activity also gets a table of contents and Previous / Continue / Exit buttons.
 */
export function playerPage(model: PlayerPageModel, autocommitSeconds: number): string {
  const multi = model.nav.order.length > 1;
  const windowed = model.launchType.startsWith('NEW_WINDOW');
  const { lang, strings: t } = playerStrings(model.culture);
  const afterClick = model.launchType.includes('AFTER_CLICK');
  const config = {
    version: model.version,
    activityId: model.activityId,
    title: model.title,
    contentUrl: model.media ? MEDIA_VIEWER_URL : contentUrlOf(model.contentHref),
    launchType: model.launchType,
    commitUrl: 'commit',
    activityUrl: 'activity',
    navUrl: 'nav',
    // SCORM 2004: the server's sequencing engine decides navigation; the page shows what it says is valid.
    seq: model.seq ?? null,
    cmi: model.cmi,
    sharedData: model.sharedData ?? null,
    // An AICC AU reports over HACP to the server itself: the page's SCORM API commits nothing.
    // An xAPI course reports to the LRS itself: the page's SCORM API commits nothing and is not exposed.
    tracking: model.tracking && !model.aicc && !model.xapi,
    aiccUrl: model.aicc ? 'aicc' : null,
    noApi: model.xapi === true,
    ownWindow: model.ownWindow === true,
    redirectOnExitUrl: model.redirectOnExitUrl,
    autocommitSeconds,
    nav: multi ? model.nav : null,
    strings: t,
  };
  const navHtml = multi
    ? `<div id="lcds-bar" role="toolbar" aria-label="${escapeHtml(t.navigation)}"><strong id="lcds-course">${escapeHtml(model.courseTitle || model.title)}</strong>
<span class="lcds-buttons"><button type="button" id="lcds-prev">${escapeHtml(t.previous)}</button><button type="button" id="lcds-next">${escapeHtml(t.continue)}</button><button type="button" id="lcds-exit">${escapeHtml(t.exit)}</button>${model.seq ? `<button type="button" id="lcds-suspend">${escapeHtml(t.suspend)}</button>` : ''}</span></div>
<div id="lcds-main"><nav id="lcds-toc" aria-label="${escapeHtml(t.contents)}"><ul id="lcds-toc-list"></ul></nav>`
    : '';
  return `<!doctype html>
<html lang="${escapeHtml(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(model.title)}</title>
<style>html,body{margin:0;height:100%;overflow:hidden;font:15px system-ui,sans-serif}#lcds-sco{border:0;width:100%;height:100%;display:block}
#lcds-message{display:none;position:fixed;left:0;right:0;bottom:0;padding:.6em 1em;background:#a40000;color:#fff;z-index:10;pointer-events:none}
#lcds-done{display:none;max-width:40em;margin:4em auto;padding:0 1em}
body.lcds-multi{display:flex;flex-direction:column}
#lcds-bar{display:flex;align-items:center;justify-content:space-between;gap:1em;padding:.4em .8em;border-bottom:1px solid #ccc;background:#f5f5f5}
#lcds-bar button{margin-left:.4em;padding:.3em .9em;font:inherit}
#lcds-main{flex:1;display:flex;min-height:0}
#lcds-toc{width:16em;overflow:auto;border-right:1px solid #ccc;padding:.5em 0}
#lcds-toc ul{list-style:none;margin:0;padding:0}
#lcds-toc .lcds-heading{font-weight:600;padding:.4em .8em .2em}
#lcds-toc .lcds-item{display:flex;width:100%;justify-content:space-between;gap:.5em;border:0;background:none;text-align:left;padding:.3em .8em;font:inherit;cursor:pointer}
#lcds-toc .lcds-item[aria-current]{background:#dde8f7;font-weight:600}
#lcds-toc .lcds-item:disabled{cursor:default;color:inherit}
#lcds-toc .lcds-status{color:#2a7a2a}
body.lcds-multi #lcds-sco{flex:1;width:auto;height:auto}
#lcds-elsewhere{display:none;max-width:40em;margin:4em auto;padding:0 1em}
body.lcds-windowed #lcds-sco{display:none}body.lcds-windowed #lcds-elsewhere{display:block}body.lcds-multi #lcds-elsewhere{flex:1}</style>
${model.cssUrl ? `<link rel="stylesheet" href="${escapeHtml(model.cssUrl)}">` : ''}
<script src="/player/assets/scorm-again.min.js"></script>
<script id="lcds-config" type="application/json">${scriptJson(config)}</script>
<script src="/player/assets/player.js"></script>
</head><body class="${[multi ? 'lcds-multi' : '', windowed ? 'lcds-windowed' : ''].filter((c) => c).join(' ')}">
<div id="lcds-message" role="alert"></div>
<div id="lcds-done"><h1>${escapeHtml(t.doneTitle)}</h1><p>${escapeHtml(t.doneText)}</p></div>
${navHtml}<iframe id="lcds-sco" title="${escapeHtml(model.title)}"></iframe>${
    windowed
      ? `<div id="lcds-elsewhere"><h1 id="lcds-elsewhere-title">${escapeHtml(afterClick ? t.readyTitle : t.elsewhereTitle)}</h1>
<p id="lcds-elsewhere-text">${escapeHtml(afterClick ? t.readyText : t.elsewhereText)}</p>
<button type="button" id="lcds-open">${escapeHtml(afterClick ? t.open : t.showWindow)}</button></div>`
      : ''
  }${multi ? '</div>' : ''}
</body></html>`;
}

/**
 * The player's script (served as /player/assets/player.js). It creates window.API (SCORM 1.2) or window.API_1484_11
 * (SCORM 2004) with scorm-again, loaded with the stored data model, and sends every commit to the server itself
 * (scorm-again's httpService hook): each commit carries a sequence number, a failed one is retried with backoff
 * (the newest state wins), repeated failures show a message, and while the page unloads commits go out with
 * fetch keepalive so the last state survives closing the tab.
 *
 * Multi-SCO courses: the table of contents and Previous / Continue / Exit switch activities. Switching unloads the
 * SCO, commits its last state (final), waits until every commit is acknowledged, asks the server for the next
 * activity (POST activity) and starts it with a fresh API instance loaded with that activity's stored data. SCORM
 * 2004 SCOs may set adl.nav.request (continue, previous, exit, exitAll, {target=ID}choice), performed on Terminate;
 * SCORM 1.2 SCOs stay on screen after LMSFinish until the learner moves on.
 */
export const PLAYER_SCRIPT = String.raw`(function () {
  'use strict';
  var cfg = JSON.parse(document.getElementById('lcds-config').textContent);
  var seq = 0, pending = null, sending = false, failures = 0, unloading = false, finished = false, fatal = false;
  var api = null, current = { activityId: cfg.activityId, title: cfg.title }, terminated = false, navRequest = null, busy = false;
  var nav = cfg.nav, waiters = [], T = cfg.strings, sq = cfg.seq;
  var windowed = /^NEW_WINDOW/.test(cfg.launchType || ''), popup = null, contentUrl = null, watcher = null, inflight = null;
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
  function snapshot(a, params) {
    var flat = {};
    try { flat = normalise(a.renderCMIToJSONObject()); } catch (e) { /* keep what the commit carries */ }
    var given = normalise(params);
    for (var k in given) flat[k] = given[k];
    return flat;
  }

  function post(url, payload, keepalive) {
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload), keepalive: !!keepalive, credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) {
        if (r.status === 400 || r.status === 410) { var e = new Error('refused ' + r.status); e.fatal = true; throw e; }
        if (!r.ok) throw new Error('HTTP ' + r.status);
        return r.json();
      });
  }
  function settled() { return !pending && !sending; }
  function notify() { if (!settled()) return; var w = waiters; waiters = []; for (var i = 0; i < w.length; i++) w[i](); }
  function whenSettled() { return new Promise(function (resolve) { waiters.push(resolve); notify(); }); }
  function flush() {
    if (sending || !pending || fatal) return;
    var p = pending; pending = null; sending = true; inflight = p;
    post(cfg.commitUrl, p, unloading).then(function (res) {
      sending = false; inflight = null; failures = 0; hide();
      if (res && res.applied && res.activityCompletion) markCompletion(p.activityId, res.activityCompletion);
      if (res && res.nav && sq) { sq.nav = res.nav; renderNav(); }
      if (pending) flush(); else { notify(); afterSettled(); }
    }, function (err) {
      sending = false; inflight = null;
      if (err && err.fatal) { fatal = true; show(T.sessionEnded); notify(); return; }
      failures++;
      if (!pending) pending = p; // a newer commit supersedes this one (each carries the whole data model)
      if (failures >= 3) show(T.saveFailing.replace('{n}', String(failures)));
      setTimeout(flush, Math.min(15000, 500 * Math.pow(2, failures - 1)));
    });
  }
  /** adl.data: the stores the SCO may write (the server keeps them for the registration). */
  function withShared(a, payload) {
    if (a && a.adl && typeof a.adl.captureWritableSharedDataSnapshot === 'function') {
      var stores = a.adl.captureWritableSharedDataSnapshot();
      if (stores && Object.keys(stores).length) payload.sharedData = stores;
    }
    return payload;
  }
  function commit(a, params, final) {
    if (!cfg.tracking || a !== api) return; // an API left behind by a switch commits nothing
    var payload = withShared(a, { seq: ++seq, activityId: current.activityId, cmi: snapshot(a, params), final: !!final, initialized: a.currentState > 0 });
    if (unloading) { post(cfg.commitUrl, payload, true).catch(function () {}); return; }
    pending = payload;
    flush();
  }

  function createApi(cmi, shared) {
    var a;
    var httpService = {
      processHttpRequest: function (url, params, immediate, apiLog, processListeners, metadata) {
        commit(a, params, !!(metadata && metadata.isTerminateCommit));
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
    a = cfg.version === '1.2' ? new window.Scorm12API(settings) : new window.Scorm2004API(settings);
    a.loadFromFlattenedJSON(cmi, '');
    // SCORM 2004 adl.data: the SCO's shared data buckets (its maps, in order) with the stores the server holds.
    if (shared && a.adl && typeof a.adl.configureSharedDataMaps === 'function') {
      a.adl.configureSharedDataMaps(shared.maps);
      a.adl.restoreSharedDataSnapshot(shared.stores || {});
    }
    api = a; terminated = false; navRequest = null;
    // An AICC AU finds no SCORM API (content that tries SCORM first then talks HACP, which the server records).
    if (!cfg.aiccUrl && !cfg.noApi) { if (cfg.version === '1.2') window.API = a; else window.API_1484_11 = a; }
    a.on(cfg.version === '1.2' ? 'LMSFinish' : 'Terminate', function () { if (a === api) onFinish(a); });
    if (cfg.version !== '1.2') a.on('SetValue.adl.nav.request', function (el, value) { if (a === api) navRequest = String(value); });
    if (window.lcdsPlayer) window.lcdsPlayer.api = a;
    setValid(a);
    return a;
  }
  /**
   * adl.nav.request_valid.* answered from the server's valid requests (sent with each delivery and commit answer, so
   * GetValue stays synchronous), in place of scorm-again's own client-side guess.
   */
  function setValid(a) {
    if (!sq || !a || a.lcdsValid) return;
    a.lcdsValid = true;
    var get = a.GetValue;
    a.GetValue = function (element) {
      var el = String(element), v = sq.nav;
      var m = /^adl\.nav\.request_valid\.(choice|jump)\.\{target=([^}]*)\}$/.exec(el);
      var simple = /^adl\.nav\.request_valid\.(continue|previous|exitAll|suspendAll)$/.exec(el);
      if ((!m && !simple) || !a.isInitialized()) return get.apply(a, arguments);
      a.lastErrorCode = '0';
      if (simple) return v[simple[1]] ? 'true' : 'false';
      return (m[1] === 'choice' ? v.choice : v.jump).indexOf(m[2]) >= 0 ? 'true' : 'false';
    };
  }
  createApi(cfg.cmi, cfg.sharedData);
  window.lcdsPlayer = {
    api: api,
    current: function () { return current.activityId; },
    /** SCORM 2004: the valid navigation requests the server sent last. */
    validRequests: function () { return sq ? sq.nav : null; },
    state: function () { return { seq: seq, pending: !!pending, sending: sending, failures: failures, finished: finished, activityId: current.activityId, busy: busy }; }
  };

  function afterSettled() {
    if (!finished || pending || sending || unloading) return;
    var target = cfg.redirectOnExitUrl;
    if (/^https?:/i.test(target)) { window.location.href = target; return; }
    if (target === 'blank') { window.location.href = 'about:blank'; return; }
    closePopup();
    if (nav) { $('lcds-bar').style.display = 'none'; $('lcds-main').style.display = 'none'; }
    $('lcds-sco').style.display = 'none';
    if (windowed) $('lcds-elsewhere').style.display = 'none';
    $('lcds-done').style.display = 'block';
  }
  function onFinish(a) {
    terminated = true;
    if (busy) return; // the player itself unloaded the SCO
    var req = navRequest;
    if (!req) { try { req = a.adl && a.adl.nav && a.adl.nav.request; } catch (e) { req = null; } }
    req = req ? String(req) : '';
    // SCORM 2004 sequencing: the server runs the SCO's request (after the commit of what it left).
    if (sq && req && req !== '_none_') { setTimeout(function () { navigate(req); }, 0); return; }
    if (!nav) { finished = true; setTimeout(afterSettled, 0); return; }
    var m = /^\{target=([^}]+)\}(choice|jump)$/.exec(req);
    // After the API call returns, so the SCO's own code runs to its end first.
    setTimeout(function () {
      if (req === 'continue') go(indexOf(current.activityId) + 1, false);
      else if (req === 'previous') go(indexOf(current.activityId) - 1, false);
      else if (m) go(indexOf(m[1]), true);
      else if (req === 'exit' || req === 'exitAll' || req === 'suspendAll' || req === 'abandon' || req === 'abandonAll') exit();
      else renderNav();
    }, 0);
  }

  // ---- navigation (multi-SCO courses) ----
  function indexOf(id) { return nav ? nav.order.indexOf(id) : -1; }
  function entry(id) { for (var i = 0; nav && i < nav.toc.length; i++) if (nav.toc[i].kind === 'item' && nav.toc[i].id === id) return nav.toc[i]; return null; }
  function flowOk(from, to) { var a = entry(nav.order[from]), b = entry(nav.order[to]); return !!(a && b && a.flow !== false && b.flow !== false); }
  function markCompletion(id, completion) { var e = entry(id); if (e && e.completion !== completion) { e.completion = completion; renderNav(); } }
  function statusText(c) { return c === 'COMPLETED' ? '\u2713' : c === 'INCOMPLETE' ? '\u2026' : ''; }
  /**
   * Draws the table of contents: selectable(e) says whether an item may be picked now, pick(e) runs it. SCORM 2004
   * (sequencing): the server's choice set; invisible items are left out. Other courses: the static choice control.
   */
  function renderToc(selectable, pick) {
    var list = $('lcds-toc-list'); list.textContent = '';
    nav.toc.forEach(function (e) {
      if (sq && (sq.hidden.indexOf(e.id) >= 0 || (sq.nav.order && sq.nav.order.indexOf(e.id) < 0))) return;
      var li = document.createElement('li');
      li.style.paddingLeft = (e.depth * 1) + 'em';
      if (e.kind === 'heading') { li.className = 'lcds-heading'; li.textContent = e.title; list.appendChild(li); return; }
      var b = document.createElement('button');
      b.type = 'button'; b.className = 'lcds-item'; b.setAttribute('data-id', e.id); b.setAttribute('data-completion', e.completion || 'UNKNOWN');
      var t = document.createElement('span'); t.className = 'lcds-title'; t.textContent = e.title; b.appendChild(t);
      var st = document.createElement('span'); st.className = 'lcds-status'; st.textContent = statusText(e.completion);
      st.setAttribute('aria-label', e.completion === 'COMPLETED' ? 'completed' : e.completion === 'INCOMPLETE' ? 'incomplete' : 'not started');
      b.appendChild(st);
      if (e.id === current.activityId && !(sq && finished)) b.setAttribute('aria-current', 'step');
      b.disabled = busy || finished || !selectable(e);
      b.addEventListener('click', function () { pick(e); });
      li.appendChild(b); list.appendChild(li);
    });
  }
  function renderNav() {
    if (!nav) return;
    if (sq) { renderSeqNav(); return; }
    renderToc(function (e) { return e.choice !== false; }, function (e) { go(indexOf(e.id), true); });
    var i = indexOf(current.activityId);
    $('lcds-prev').disabled = busy || finished || i <= 0 || !flowOk(i, i - 1);
    $('lcds-next').disabled = busy || finished || i < 0 || i >= nav.order.length - 1 || !flowOk(i, i + 1);
    $('lcds-exit').disabled = busy || finished;
  }
  /** SCORM 2004: the table of contents enables what a choice may select; a button shows when its request is valid. */
  function renderSeqNav() {
    var v = sq.nav;
    nav.toc.forEach(function (e) { if (e.kind === 'item' && v.completion && v.completion[e.id]) e.completion = v.completion[e.id]; });
    // Selection and randomization of children: the entries follow the order of the attempts (children not selected are left out).
    if (v.order) { var pos = {}; v.order.forEach(function (id, i) { pos[id] = i; }); nav.toc.sort(function (a, b) { return (a.id in pos ? pos[a.id] : 1e9) - (b.id in pos ? pos[b.id] : 1e9); }); }
    renderToc(function (e) { return v.choice.indexOf(e.id) >= 0; }, function (e) { navigate('{target=' + e.id + '}choice'); });
    var buttons = { 'lcds-prev': v.previous, 'lcds-next': v.continue, 'lcds-exit': v.exitAll, 'lcds-suspend': v.suspendAll };
    // adlnav:hideLMSUI of the running SCO: its buttons are hidden (the requests stay valid for the SCO itself).
    var hideUi = (sq.hideUi && sq.hideUi[current.activityId]) || [];
    // The page's one Exit button (exit all) hides for "exit" or "exitAll".
    var requestsOf = { 'lcds-prev': ['previous'], 'lcds-next': ['continue'], 'lcds-exit': ['exit', 'exitAll'], 'lcds-suspend': ['suspendAll'] };
    for (var id in buttons) {
      var el = $(id); if (!el) continue;
      var hiddenByContent = requestsOf[id].some(function (r) { return hideUi.indexOf(r) >= 0; });
      el.hidden = !buttons[id] || hiddenByContent; el.disabled = busy || finished || !buttons[id] || hiddenByContent;
    }
  }
  /** SCORM 2004: sends a navigation request to the server (after unloading the SCO) and runs what it answers. */
  function navigate(request) {
    if (!sq || busy || finished) return;
    busy = true; renderNav();
    unloadSco().then(function () {
      return fetch(cfg.navUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ request: request }), credentials: 'same-origin', cache: 'no-store' })
        .then(function (r) { return r.json().then(function (body) { if (!r.ok) throw new Error(body && body.message || ('HTTP ' + r.status)); return body; }); });
    }).then(function (out) {
      busy = false;
      if (out.nav) sq.nav = out.nav;
      if (out.error) show(T.notAllowed.replace('{reason}', out.error)); else hide();
      if (out.launch) {
        current = { activityId: out.launch.activityId, title: out.launch.title };
        createApi(out.launch.cmi, out.launch.sharedData);
        renderNav();
        $('lcds-sco').title = out.launch.title || '';
        openContent(out.launch.contentUrl);
        return;
      }
      if (out.ended || !nav) { finished = true; renderNav(); afterSettled(); return; }
      renderNav();
    }, function () {
      busy = false; renderNav();
      show(T.nextFailed);
    });
  }
  window.lcdsNavigate = navigate;
  // ---- where the content runs: the player's frame, or (PlayerLaunchType NEW_WINDOW…) a window of its own ----
  function openContent(url, ownWindow) {
    contentUrl = url;
    // cmi5 launchMethod OwnWindow: the AU replaces this page; its returnURL leads back.
    if (ownWindow === undefined ? cfg.ownWindow : ownWindow) { location.assign(url); return; }
    if (!windowed) { $('lcds-sco').src = url; return; }
    if (popup && !popup.closed) { popup.location.href = url; popup.focus(); return; }
    var features = /WITHOUT_BROWSER_TOOLBAR/.test(cfg.launchType) ? 'popup=yes,toolbar=no,location=no,menubar=no,status=no,resizable=yes,scrollbars=yes' : '';
    popup = window.open(url, 'lcds-content', features);
    if (!popup) { show(T.popupBlocked); return; }
    hide();
    $('lcds-elsewhere-title').textContent = T.elsewhereTitle;
    $('lcds-elsewhere-text').textContent = T.elsewhereText;
    $('lcds-open').textContent = T.showWindow;
    if (!watcher) watcher = setInterval(watchPopup, 500);
  }
  /** The learner closed the course window: the lesson ends as if they had pressed Exit. */
  function watchPopup() {
    if (!popup || !popup.closed || busy || finished) return;
    clearInterval(watcher); watcher = null; popup = null;
    if (!terminated && cfg.tracking) commit(api, null, true);
    terminated = true; finished = true; renderNav();
    whenSettled().then(afterSettled);
  }
  function closePopup() {
    if (watcher) { clearInterval(watcher); watcher = null; }
    if (popup && !popup.closed) popup.close();
    popup = null;
  }
  /** Navigates the content to about:blank and resolves once it got there (its unload handlers have run). */
  function blankContent() {
    return new Promise(function (resolve) {
      var done = false;
      function next() { if (done) return; done = true; resolve(); }
      setTimeout(next, 3000);
      if (!windowed) {
        var frame = $('lcds-sco');
        frame.addEventListener('load', function onLoad() { frame.removeEventListener('load', onLoad); next(); });
        frame.src = 'about:blank';
        return;
      }
      if (!popup || popup.closed) { next(); return; }
      popup.location.href = 'about:blank';
      (function poll() {
        var there = false;
        try { there = popup.closed || (popup.location.href === 'about:blank' && popup.document.readyState === 'complete'); } catch (e) { there = false; }
        if (there) next(); else if (!done) setTimeout(poll, 50);
      })();
    });
  }
  /** Unloads the SCO (its unload handlers may still call the API), then commits what it left as final. */
  function unloadSco() {
    return blankContent().then(function () {
      if (!terminated && cfg.tracking) commit(api, null, true);
      terminated = true;
      return whenSettled();
    });
  }
  function go(index, choice) {
    if (!nav || busy || finished || index < 0 || index >= nav.order.length) { renderNav(); return; }
    var id = nav.order[index];
    if (choice && entry(id) && entry(id).choice === false) { renderNav(); return; }
    busy = true; renderNav();
    unloadSco().then(function () {
      return fetch(cfg.activityUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ activityId: id }), credentials: 'same-origin', cache: 'no-store' })
        .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); });
    }).then(function (launch) {
      current = { activityId: launch.activityId, title: launch.title };
      createApi(launch.cmi, launch.sharedData);
      busy = false; renderNav();
      $('lcds-sco').title = launch.title || '';
      openContent(launch.contentUrl, launch.ownWindow === true);
    }, function () {
      busy = false; renderNav();
      show(T.nextFailed);
    });
  }
  function exit() {
    if (busy || finished) return;
    busy = true; renderNav();
    unloadSco().then(function () { busy = false; finished = true; renderNav(); afterSettled(); });
  }

  function leaving() {
    if (unloading) return;
    unloading = true;
    // The SCO may still be running (tab closed mid-lesson): send its current state now, with keepalive.
    if (!finished && !terminated && cfg.tracking) {
      var payload = withShared(api, { seq: ++seq, activityId: current.activityId, cmi: snapshot(api, null), final: true, initialized: api.currentState > 0 });
      if (pending) pending = null;
      post(cfg.commitUrl, payload, true).catch(function () {});
    } else if (pending) { var p = pending; pending = null; post(cfg.commitUrl, p, true).catch(function () {}); }
    // A commit still on its way without keepalive (the SCO's last one, sent as it terminated) may be cut off with
    // the page: send it again with keepalive (the server applies a sequence number once).
    else if (inflight) post(cfg.commitUrl, inflight, true).catch(function () {});
  }
  window.addEventListener('pagehide', function () { leaving(); closePopup(); });
  window.addEventListener('beforeunload', function () { if (pending || sending) leaving(); });

  function start() {
    if (nav && sq) {
      $('lcds-prev').addEventListener('click', function () { navigate('previous'); });
      $('lcds-next').addEventListener('click', function () { navigate('continue'); });
      $('lcds-exit').addEventListener('click', function () { navigate('exitAll'); });
      $('lcds-suspend').addEventListener('click', function () { navigate('suspendAll'); });
      renderNav();
    } else if (nav) {
      $('lcds-prev').addEventListener('click', function () { go(indexOf(current.activityId) - 1, false); });
      $('lcds-next').addEventListener('click', function () { go(indexOf(current.activityId) + 1, false); });
      $('lcds-exit').addEventListener('click', exit);
      renderNav();
    }
    if (windowed) {
      $('lcds-open').addEventListener('click', function () { if (popup && !popup.closed) popup.focus(); else openContent(contentUrl || cfg.contentUrl); });
      if (/AFTER_CLICK/.test(cfg.launchType)) { contentUrl = cfg.contentUrl; return; }
    }
    openContent(cfg.contentUrl);
  }
  // AICC: the AU reports over HACP to the server; the page follows its completion and its ExitAU from there.
  function watchAicc() {
    if (finished || unloading) return;
    fetch(cfg.aiccUrl, { credentials: 'same-origin', cache: 'no-store' }).then(function (r) { return r.ok ? r.json() : null; }).then(function (st) {
      if (!st || busy || finished || st.activityId !== current.activityId) return;
      if (st.completion) markCompletion(st.activityId, st.completion);
      if (st.exited && !terminated) onFinish(api);
    }, function () {}).then(function () { setTimeout(watchAicc, 1500); });
  }
  if (cfg.aiccUrl) setTimeout(watchAicc, 1500);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start); else start();
})();
`;
