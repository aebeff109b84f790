import { isAbsoluteUrl } from '../courses/packages/package-paths';
import { escapeHtml } from './player-errors';
import { playerStrings } from './player-strings';
import type { PlayerPageModel } from './player.service';
import { SCORM12_RESPONSE_FORMATS } from './tracking-rules';

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
export function playerPage(model: PlayerPageModel): string {
  const multi = model.nav.order.length > 1;
  const windowed = model.launchType.startsWith('NEW_WINDOW');
  const { lang, strings: t } = playerStrings(model.culture);
  const afterClick = model.launchType.includes('AFTER_CLICK');
  const layout = layoutOf(model, multi);
  const config = {
    version: model.version,
    activityId: model.activityId,
    title: model.title,
    contentUrl: model.media ? MEDIA_VIEWER_URL : contentUrlOf(model.contentHref),
    launchType: model.launchType,
    commitUrl: 'commit',
    activityUrl: 'activity',
    navUrl: 'nav',
    logUrl: 'log',
    // The launch's history log records the SCO's API calls (PlayerCaptureHistory): null when it does not.
    history: model.history && !model.aicc && !model.xapi ? model.history : null,
    // SCORM 2004: the server's sequencing engine decides navigation; the page shows what it says is valid.
    seq: model.seq ?? null,
    cmi: model.cmi,
    sharedData: model.sharedData ?? null,
    // An AICC AU reports over HACP to the server itself: the page's SCORM API commits nothing.
    // An xAPI course reports to the LRS itself: the page's SCORM API commits nothing and is not exposed.
    tracking: model.tracking && !model.aicc && !model.xapi,
    aiccUrl: model.aicc ? 'aicc' : null,
    noApi: model.xapi === true,
    // xAPI and cmi5 launches: the page tells the server when the learner leaves it (the launch's exit; xAPI: its time).
    exitUrl: model.tracking && model.xapi ? 'exit' : null,
    // xAPI and cmi5 content reports to the LRS: the table of contents asks the server for the activities' status.
    statusUrl: multi && model.xapi === true && model.tracking ? 'status' : null,
    ownWindow: model.ownWindow === true,
    redirectOnExitUrl: model.redirectOnExitUrl,
    // The launch's PlayerComm* / PlayerSuspendDataMaxLength / PreferSendBeacon settings (tracking-rules.ts).
    autocommitSeconds: model.client.commitSeconds,
    maxFailed: model.client.maxFailedSubmissions,
    finishCommit: model.client.finishImmediateCommit,
    suspendMax: model.client.suspendDataMaxLength,
    beacon: model.client.sendBeacon,
    // PlayerValidateInteractionResponses when set: SCORM 1.2 responses checked against these formats, or free text.
    responses: model.client.validateResponses === undefined ? null : model.client.validateResponses ? (model.version === '1.2' ? SCORM12_RESPONSE_FORMATS : null) : 'free',
    exit: model.exit ?? null,
    timeLeft: typeof model.timeLeft === 'number' ? model.timeLeft : null,
    nav: multi ? model.nav : null,
    strings: t,
    ui: { ...layout, lookahead: model.ui.lookahead, invalidMenuItem: model.ui.invalidMenuItem, statusDisplay: model.ui.statusDisplay ?? 'COMPLETION_ONLY', desired: model.ui.desired ?? null, required: model.ui.required ?? null, preventRightClick: model.ui.preventRightClick === true },
    progress: model.progress ?? 0,
  };
  const button = (id: string, label: string, extra = '') => `<button type="button" id="${id}"${extra}>${escapeHtml(label)}</button>`;
  const buttons = [
    layout.flowButtons ? button('lcds-prev', t.previous) + button('lcds-next', t.continue) : '',
    layout.closeItem ? button('lcds-close', t.close) : '',
    layout.finishButton ? button('lcds-exit', t.exit) : '',
    layout.navBar && model.seq ? button('lcds-suspend', t.suspend) : '',
    layout.help ? button('lcds-help-button', t.help, ' aria-expanded="false" aria-controls="lcds-help"') : '',
  ].join('');
  const barHtml = layout.bar
    ? `<div id="lcds-bar" role="toolbar" aria-label="${escapeHtml(t.navigation)}">${layout.tocToggle ? button('lcds-toc-toggle', t.contents, ` aria-expanded="${layout.tocOpen}" aria-controls="lcds-toc"`) : ''}${
        layout.titleBar ? `<strong id="lcds-course">${escapeHtml(model.courseTitle || model.title)}</strong>` : ''
      }${layout.progressBar ? `<span id="lcds-progress-wrap"><progress id="lcds-progress" max="100" value="0" aria-label="${escapeHtml(t.progress)}"></progress> <span id="lcds-progress-text"></span></span>` : ''}
<span class="lcds-buttons">${buttons}</span></div>${layout.help ? `<div id="lcds-help" role="region" aria-label="${escapeHtml(t.help)}" hidden><p>${escapeHtml(t.helpText)}</p></div>` : ''}`
    : '';
  const navHtml = multi
    ? `${barHtml}
<div id="lcds-main"><nav id="lcds-toc" aria-label="${escapeHtml(t.contents)}"${layout.toc && layout.tocOpen ? '' : ' hidden'}><ul id="lcds-toc-list"></ul></nav>`
    : barHtml;
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
#lcds-toc{width:${layout.tocWidth ? `${layout.tocWidth}px` : '16em'};flex:none;box-sizing:border-box;overflow:auto;border-right:1px solid #ccc;padding:.5em 0}#lcds-toc[hidden]{display:none}
#lcds-help{padding:.4em .8em;border-bottom:1px solid #ccc;background:#fffbe6}#lcds-help p{margin:0;max-width:60em}
#lcds-progress-wrap{display:flex;align-items:center;gap:.4em;white-space:nowrap}#lcds-progress{width:10em}
#lcds-size,#lcds-closed{padding:.6em 1em;background:#fff3cd;border-bottom:1px solid #e0c060}#lcds-size[hidden],#lcds-closed[hidden]{display:none}
body.lcds-multi #lcds-closed{flex:1;border:0}#lcds-closed:not([hidden])+#lcds-sco{display:none}
#lcds-toc .lcds-item.lcds-invalid{color:#777}#lcds-course{margin-right:auto}#lcds-toc .lcds-status.lcds-failed{color:#a40000}
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
</head><body class="${[multi || layout.bar ? 'lcds-multi' : '', windowed ? 'lcds-windowed' : ''].filter((c) => c).join(' ')}">
<div id="lcds-message" role="alert"></div>${
    model.ui.required ? `<div id="lcds-size" role="status" hidden><span id="lcds-size-text"></span>${model.ui.required.fullScreen ? ` ${button('lcds-fullscreen', t.fullScreen)}` : ''}</div>` : ''
  }
<div id="lcds-done"><h1>${escapeHtml(t.doneTitle)}</h1><p id="lcds-done-text">${escapeHtml(t.doneText)}</p></div>
${navHtml}${layout.closeItem ? `<div id="lcds-closed" role="status" hidden>${escapeHtml(t.closedText)}</div>` : ''}<iframe id="lcds-sco" title="${escapeHtml(model.title)}"></iframe>${
    windowed
      ? `<div id="lcds-elsewhere"><h1 id="lcds-elsewhere-title">${escapeHtml(afterClick ? t.readyTitle : t.elsewhereTitle)}</h1>
<p id="lcds-elsewhere-text">${escapeHtml(afterClick ? t.readyText : t.elsewhereText)}</p>
<button type="button" id="lcds-open">${escapeHtml(afterClick ? t.open : t.showWindow)}</button></div>`
      : ''
  }${multi ? '</div>' : ''}
</body></html>`;
}

/**
 * What the page shows, from the launch's UI settings (player-ui.ts); a setting nobody set keeps the player's own
 * behaviour: a multi-SCO course gets the nav bar with its title, Exit and an open table of contents, a one-SCO
 * course the content alone. Previous/Continue and the table of contents only exist with more than one SCO.
 */
function layoutOf(model: PlayerPageModel, multi: boolean) {
  const ui = model.ui;
  const navBar = ui.navBar ?? multi;
  const toc = multi && ui.courseStructure !== false;
  const tocOpen = ui.structureStartsOpen !== false;
  const l = {
    navBar,
    // Previous/Continue: SCORM 2004 follows the sequencing; other courses PlayerEnableFlowNav (on unless set off).
    flowButtons: multi && navBar && (model.seq !== undefined || ui.flowNav !== false),
    choiceNav: model.seq !== undefined || ui.choiceNav !== false,
    finishButton: ui.finishButton ?? navBar,
    closeItem: ui.closeItem === true,
    help: ui.help === true,
    progressBar: ui.progressBar === true,
    measureProgress: ui.measureProgressBar === true,
    titleBar: ui.titleBar ?? navBar,
    toc,
    tocOpen: toc && tocOpen,
    // The toggle exists when PlayerCourseStructureStartsOpen is set (the outline can then be collapsed and opened).
    tocToggle: toc && ui.structureStartsOpen !== undefined,
    tocWidth: ui.structureWidth ?? 0,
    bar: false,
  };
  l.bar = l.navBar || l.titleBar || l.progressBar || l.help || l.tocToggle || l.finishButton || l.closeItem;
  return l;
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

  // ---- the launch's history log: the SCO's API calls (call, arguments, result, error code), sent in batches ----
  // A batch goes after 2 s, or at 200 lines or 48 KB (under the body limit, and what a keepalive request may carry).
  var logBuf = [], logTimer = null, logChars = 0;
  function sendLog(keepalive) {
    if (logTimer) { clearTimeout(logTimer); logTimer = null; }
    if (!logBuf.length) return;
    var now = Date.now(), lines = logBuf.map(function (l) { return [Math.max(0, now - l[0]), l[1]]; });
    logBuf = []; logChars = 0;
    fetch(cfg.logUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ lines: lines }), keepalive: !!keepalive, credentials: 'same-origin', cache: 'no-store' }).catch(function () {});
  }
  function logCall(text, at) {
    logBuf.push([at, text]);
    logChars += text.length;
    if (logBuf.length >= 200 || logChars >= 48000) sendLog(unloading);
    else if (!logTimer) logTimer = setTimeout(function () { logTimer = null; sendLog(unloading); }, 2000);
  }
  /**
   * Records every call of the SCO on this API object. Audit: values cut at 200 characters, the error-query calls
   * (GetLastError, GetErrorString, GetDiagnostic) left out (each line carries the call's error code and text);
   * detailed: values up to 4,000 characters and the error-query calls too.
   */
  function captureCalls(a) {
    var h = cfg.history;
    if (!h || !a) return;
    var v12 = cfg.version === '1.2', detailed = h.level === 'detailed', max = detailed ? 4000 : 200;
    var errName = v12 ? 'LMSGetLastError' : 'GetLastError', strName = v12 ? 'LMSGetErrorString' : 'GetErrorString';
    var lastError = a[errName], errorString = a[strName];
    var quiet = /Get(LastError|ErrorString|Diagnostic)$/;
    var names = v12 ? ['LMSInitialize', 'LMSFinish', 'LMSGetValue', 'LMSSetValue', 'LMSCommit', 'LMSGetLastError', 'LMSGetErrorString', 'LMSGetDiagnostic']
      : ['Initialize', 'Terminate', 'GetValue', 'SetValue', 'Commit', 'GetLastError', 'GetErrorString', 'GetDiagnostic'];
    function shown(x) { var t = String(x); return JSON.stringify(t.length > max ? t.slice(0, max) + '… (' + t.length + ' characters)' : t); }
    names.forEach(function (name) {
      var call = a[name];
      if (typeof call !== 'function' || (!detailed && quiet.test(name))) return;
      a[name] = function () {
        var t0 = Date.now(), result = call.apply(a, arguments), ms = Date.now() - t0;
        var line = name + '(' + Array.prototype.map.call(arguments, shown).join(', ') + ') = ' + shown(result);
        if (!quiet.test(name)) {
          var code = '0';
          try { code = String(lastError.call(a)); } catch (e) { code = '?'; }
          line += ' error ' + code;
          if (code !== '0') { try { line += ' ' + JSON.stringify(String(errorString.call(a, code))); } catch (e) { /* no text */ } }
        }
        if (h.timings) line += ' (' + ms + ' ms)';
        logCall(line, t0);
        return result;
      };
    });
  }

  function post(url, payload, keepalive) {
    // PreferSendBeacon: an unloading page's commits go by sendBeacon (text/plain: no preflight; the server reads it as JSON).
    if (keepalive && cfg.beacon && navigator.sendBeacon && navigator.sendBeacon(url, new Blob([JSON.stringify(payload)], { type: 'text/plain' }))) return Promise.resolve({});
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload), keepalive: !!keepalive, credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) {
        if (r.ok) return r.json();
        // 400 and 410 end the session; so does a reason (a later launch of the registration took over).
        return r.json().then(null, function () { return null; }).then(function (body) {
          var e = new Error('HTTP ' + r.status); e.reason = body && body.reason;
          e.fatal = r.status === 400 || r.status === 410 || !!e.reason;
          throw e;
        });
      });
  }
  function settled() { return !pending && !sending; }
  function notify() { if (!settled()) return; var w = waiters; waiters = []; for (var i = 0; i < w.length; i++) w[i](); }
  function whenSettled() { return new Promise(function (resolve) { waiters.push(resolve); notify(); }); }
  function flush() {
    if (sending || !pending || fatal) return;
    var p = pending; pending = null; sending = true; inflight = p;
    post(cfg.commitUrl, p, unloading).then(function (res) {
      sending = false; inflight = null; failures = 0; hide('save');
      if (res && res.applied && res.activityCompletion) markCompletion(p.activityId, res.activityCompletion, res.activitySuccess);
      if (res && typeof res.progress === 'number') { cfg.progress = res.progress; renderProgress(); }
      if (res && res.registrationCompletion) course = { completion: res.registrationCompletion, success: res.registrationSuccess };
      if (res && res.nav && sq) { sq.nav = res.nav; if (UI.lookahead === 'REALTIME') sq.shown = res.nav; renderNav(); }
      if (pending) flush(); else { notify(); afterSettled(); }
    }, function (err) {
      sending = false; inflight = null;
      if (err && err.fatal) { fatal = true; stopped(err.reason); notify(); return; }
      failures++;
      if (!pending) pending = p; // a newer commit supersedes this one (each carries the whole data model)
      if (failures >= Math.max(1, cfg.maxFailed)) show(T.saveFailing.replace('{n}', String(failures)), 'save');
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
    // PlayerFinishCausesImmediateCommit NO: the SCO's last commit waits for the commit interval.
    if (final && !cfg.finishCommit) { setTimeout(flush, cfg.autocommitSeconds * 1000); return; }
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
      autocommit: cfg.autocommitSeconds > 0,
      autocommitSeconds: cfg.autocommitSeconds || 1,
      lmsCommitUrl: cfg.commitUrl,
      dataCommitFormat: 'flattened',
      sendFullCommit: true,
      httpService: httpService,
      // SCORM 1.2: the server decides passed/failed from the mastery score (PlayerScoreOverridesStatus), not the page.
      mastery_override: false,
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
    ruleResponses(a);
    captureCalls(a);
    limitSuspendData(a);
    return a;
  }
  /**
   * PlayerValidateInteractionResponses. YES (SCORM 1.2): once the interaction's type is set, a student_response or
   * correct_responses pattern is taken if and only if it has the type's format (SCORM12_RESPONSE_FORMATS), else
   * refused with 405 (SCORM 2004: scorm-again's own checks, unchanged). NO: responses and patterns are free text; what
   * scorm-again refuses for its format (SCORM 1.2: a line break; 2004: the type's format or number of parts, error 406
   * or 351) is stored as given. Other errors stay (not initialized, an interaction without id or type in SCORM 2004,
   * a duplicate pattern).
   */
  function ruleResponses(a) {
    var rule = cfg.responses;
    if (!rule) return;
    var v12 = cfg.version === '1.2', name = v12 ? 'LMSSetValue' : 'SetValue', set = a[name];
    var element = v12 ? /^cmi\.interactions\.(\d+)\.(student_response|correct_responses\.(\d+)\.pattern)$/ : /^cmi\.interactions\.(\d+)\.(learner_response|correct_responses\.(\d+)\.pattern)$/;
    // SCORM 2004's patterns are checked as their entry is made: free text skips the format check only.
    if (rule === 'free' && !v12 && a._responseValidator) a._responseValidator.checkValidResponseType = function () {};
    function interaction(n) { return a.cmi && a.cmi.interactions && a.cmi.interactions.childArray[Number(n)]; }
    a[name] = function (el, value) {
      var m = element.exec(String(el)), live = a.isInitialized() && !a.isTerminated();
      if (!m || !live) return set.apply(a, arguments);
      var item = interaction(m[1]);
      if (rule !== 'free') {
        // The type's format decides (scorm-again's own check, which refuses a line break in any text, does not).
        var format = item && item._type ? rule[item._type] : null;
        if (!format) return set.apply(a, arguments);
        if (!new RegExp(format).test(String(value))) { a.lastErrorCode = '405'; return 'false'; }
      }
      var result = set.apply(a, arguments), code = String(a.lastErrorCode);
      if (result === 'true' || (code !== '405' && code !== '406' && code !== '351')) return result;
      item = interaction(m[1]);
      if (!item || (!v12 && (!item._type || !item._id))) return result;
      var target = m[3] === undefined ? item : item.correct_responses && item.correct_responses.childArray[Number(m[3])];
      if (!target) return result;
      target[m[3] === undefined ? (v12 ? '_student_response' : '_learner_response') : '_pattern'] = String(value);
      a.lastErrorCode = '0';
      if (a.settings.autocommit) a.scheduleCommit(a.settings.autocommitSeconds * 1000, v12 ? 'LMSCommit' : 'Commit');
      return 'true';
    };
  }
  /**
   * PlayerSuspendDataMaxLength: a longer cmi.suspend_data is refused, as a value the element cannot hold (SCORM 1.2:
   * 405 incorrect data type; SCORM 2004: 407 value out of range), and the stored one is kept.
   */
  function limitSuspendData(a) {
    if (cfg.suspendMax === null || cfg.suspendMax === undefined) return;
    var name = cfg.version === '1.2' ? 'LMSSetValue' : 'SetValue', set = a[name];
    a[name] = function (element, value) {
      if (String(element) === 'cmi.suspend_data' && String(value).length > cfg.suspendMax && a.isInitialized() && !a.isTerminated()) {
        a.lastErrorCode = cfg.version === '1.2' ? '405' : '407';
        return 'false';
      }
      return set.apply(a, arguments);
    };
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
    state: function () { return { seq: seq, pending: !!pending, sending: sending, failures: failures, finished: finished, activityId: current.activityId, busy: busy }; },
    /** A cmi5 AU's returnURL page, in the player's frame or window: the AU is done. */
    auReturned: function () { auReturned(); }
  };

  /** The server ended the session: ForceExitConcurrentLaunches leaves the course, other reasons say why nothing is saved. */
  function stopped(reason) {
    if (reason === 'forcedExit') { pending = null; finished = true; renderNav(); leave(); return; }
    show(reason === 'concurrentLaunch' ? T.launchedElsewhere : T.sessionEnded);
  }
  function afterSettled() {
    if (!finished || pending || sending || unloading) return;
    leave();
  }
  /** The end of the session: the redirectOnExitUrl, or the page's own "you have left" message. */
  function leave() {
    sendLog(true);
    var target = cfg.redirectOnExitUrl;
    if (/^https?:/i.test(target)) { window.location.href = target; return; }
    if (target === 'blank') { window.location.href = 'about:blank'; return; }
    closePopup();
    if ($('lcds-bar')) $('lcds-bar').style.display = 'none';
    if (nav) $('lcds-main').style.display = 'none';
    $('lcds-sco').style.display = 'none';
    if (windowed) $('lcds-elsewhere').style.display = 'none';
    // PlayerTimeLimit: the page says why the course ended.
    if (timedOut) $('lcds-done-text').textContent = T.timeUp;
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
    // PlayerLogoutCausesPlayerExit: cmi.exit "logout" without a request closes the player (exit all).
    if (sq && cfg.exit && cfg.exit.logoutExits && exitOf(a) === 'logout') { setTimeout(function () { navigate('exitAll'); }, 0); return; }
    // SCORM 1.2 and AICC: the Player…ExitAction settings say what follows, once the course's state is known.
    if (!sq && !req && cfg.exit && cfg.exit.actions) {
      var kind = exitKind(exitOf(a));
      setTimeout(function () { whenSettled().then(function () { exitAction(kind); }); }, 0);
      return;
    }
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

  /** cmi.core.exit (SCORM 1.2; an AICC AU's as it reported it over HACP) or cmi.exit (SCORM 2004) the SCO left with. */
  function exitOf(a) {
    if (cfg.aiccUrl) return aiccExit;
    // Through the JSON rendering: the data model's own getters refuse write-only elements.
    return snapshot(a, null)[cfg.version === '1.2' ? 'cmi.core.exit' : 'cmi.exit'] || '';
  }
  function exitKind(v) { v = v.toLowerCase(); return v === 'suspend' ? 'Suspend' : v === 'time-out' ? 'Timeout' : v === 'logout' ? 'Logout' : 'Normal'; }
  /**
   * The exit action of the SCO that exited: by its position (the last one is "final"), whether the course is
   * satisfied (passed, or completed and not failed, as the last commit answered) and its exit kind.
   */
  function exitAction(kind) {
    if (busy || finished || unloading || fatal) return;
    var i = indexOf(current.activityId), last = !nav || i >= nav.order.length - 1;
    var satisfied = !!course && (course.success === 'PASSED' || (course.success !== 'FAILED' && course.completion === 'COMPLETED'));
    var action = cfg.exit.actions[(last ? 'Final' : 'Intermediate') + (satisfied ? 'Satisfied' : 'NotSatisfied') + kind] || 'DO_NOTHING';
    if (action === 'EXIT_COURSE_AFTER_CONFIRM') action = window.confirm(T.confirmExit) ? 'EXIT_COURSE' : 'DO_NOTHING';
    if (action === 'GO_TO_NEXT_SCO' && last) action = 'DISPLAY_MESSAGE';
    if (action === 'EXIT_COURSE') { if (nav) exit(); else { finished = true; afterSettled(); } return; }
    if (action === 'GO_TO_NEXT_SCO') { go(i + 1, false); return; }
    if (action === 'DISPLAY_MESSAGE') { exitedMessage(); return; }
    renderNav();
  }
  /** DISPLAY_MESSAGE: the SCO's place shows that this part has ended (the learner picks what follows). */
  function exitedMessage() {
    busy = true; renderNav();
    blankContent().then(function () {
      busy = false;
      var doc = null;
      try { doc = windowed ? (popup && !popup.closed ? popup.document : null) : $('lcds-sco').contentDocument; } catch (e) { doc = null; }
      if (doc && doc.body) {
        var p = doc.createElement('p'); p.id = 'lcds-sco-exited'; p.textContent = T.scoExited;
        p.style.cssText = 'font:16px system-ui,sans-serif;max-width:36em;margin:3em auto;padding:0 1em';
        doc.body.appendChild(p);
      } else show(T.scoExited);
      renderNav();
    });
  }

  // ---- navigation (multi-SCO courses) ----
  function indexOf(id) { return nav ? nav.order.indexOf(id) : -1; }
  function entry(id) { for (var i = 0; nav && i < nav.toc.length; i++) if (nav.toc[i].kind === 'item' && nav.toc[i].id === id) return nav.toc[i]; return null; }
  function flowOk(from, to) { var a = entry(nav.order[from]), b = entry(nav.order[to]); return !!(a && b && a.flow !== false && b.flow !== false); }
  function markCompletion(id, completion, success) {
    lastStatus = { completion: completion, success: success || lastStatus.success };
    var e = entry(id);
    if (e && (e.completion !== completion || (success && e.success !== success))) { e.completion = completion; if (success) e.success = success; renderNav(); } else renderProgress();
  }
  /** The mark of an item and what it says (PlayerStatusDisplayPreference: completion, success, both, one combined, none). */
  function statusOf(e) {
    var c = e.completion, s = e.success, pref = UI.statusDisplay || 'COMPLETION_ONLY';
    var cm = c === 'COMPLETED' ? ['\u2713', T.completed] : c === 'INCOMPLETE' ? ['\u2026', T.incomplete] : ['', T.notStarted];
    var sm = s === 'PASSED' ? ['\u2713', T.passed] : s === 'FAILED' ? ['\u2717', T.failed] : ['', ''];
    if (pref === 'NONE') return ['', ''];
    if (pref === 'SUCCESS_ONLY') return sm;
    if (pref === 'SEPARATE') return [cm[0] + (sm[0] ? ' ' + sm[0] : ''), cm[1] + (sm[1] ? ', ' + sm[1] : '')];
    if (pref === 'COMBINED') return sm[0] ? sm : cm;
    return cm;
  }
  /** PlayerShowProgressBar: completed SCOs of all, or (PlayerUseMeasureProgressBar) the registration's progress. */
  function renderProgress() {
    var bar = $('lcds-progress'); if (!bar) return;
    var pct;
    if (UI.measureProgress) pct = Math.round((cfg.progress || 0) * 100);
    else if (nav) {
      var items = nav.toc.filter(function (e) { return e.kind === 'item'; });
      var done = items.filter(function (e) { return e.completion === 'COMPLETED'; }).length;
      pct = items.length ? Math.round(done * 100 / items.length) : 0;
    } else pct = lastStatus.completion === 'COMPLETED' ? 100 : 0;
    bar.value = pct; $('lcds-progress-text').textContent = pct + '%';
  }
  /**
   * Draws the table of contents: selectable(e) says whether an item may be picked now, pick(e) runs it. SCORM 2004
   * (sequencing): the server's choice set; invisible items are left out. Other courses: the static choice control.
   */
  function renderToc(selectable, pick) {
    var list = $('lcds-toc-list'); list.textContent = '';
    nav.toc.forEach(function (e) {
      if (sq && (sq.hidden.indexOf(e.id) >= 0 || (sq.nav.order && sq.nav.order.indexOf(e.id) < 0))) return;
      // PlayerInvalidMenuItemAction: an item that cannot be launched now is hidden, greyed out, or shown as any other.
      var invalid = e.kind === 'item' && !selectable(e), isCurrent = e.id === current.activityId;
      if (invalid && UI.invalidMenuItem === 'HIDE' && !isCurrent) return;
      var li = document.createElement('li');
      li.style.paddingLeft = (e.depth * 1) + 'em';
      if (e.kind === 'heading') { li.className = 'lcds-heading'; li.textContent = e.title; list.appendChild(li); return; }
      var b = document.createElement('button');
      b.type = 'button'; b.className = 'lcds-item' + (invalid ? ' lcds-invalid' : ''); b.setAttribute('data-id', e.id); b.setAttribute('data-completion', e.completion || 'UNKNOWN');
      b.setAttribute('data-success', e.success || 'UNKNOWN');
      var t = document.createElement('span'); t.className = 'lcds-title'; t.textContent = e.title; b.appendChild(t);
      var mark = statusOf(e), st = document.createElement('span');
      st.className = 'lcds-status' + (mark[0] === '\u2717' ? ' lcds-failed' : ''); st.textContent = mark[0];
      if (mark[1]) st.setAttribute('aria-label', mark[1]);
      b.appendChild(st);
      if (isCurrent && !(sq && finished)) b.setAttribute('aria-current', 'step');
      b.disabled = busy || finished || (invalid && UI.invalidMenuItem !== 'SHOW');
      b.addEventListener('click', function () { pick(e); });
      li.appendChild(b); list.appendChild(li);
    });
  }
  function renderNav() {
    renderProgress();
    if ($('lcds-close')) { $('lcds-close').disabled = busy || finished || terminated && !sq; $('lcds-close').hidden = !!sq && !(sq.shown || sq.nav).exit; }
    if ($('lcds-exit')) $('lcds-exit').disabled = busy || finished;
    if (!nav) return;
    if (sq) { renderSeqNav(); return; }
    renderToc(function (e) { return e.choice !== false && UI.choiceNav !== false; }, function (e) {
      // PlayerInvalidMenuItemAction SHOW: an item that may not be chosen is pressable, and says so.
      if (e.choice === false || UI.choiceNav === false) { show(T.notAllowed.replace('{reason}', e.title)); return; }
      go(indexOf(e.id), true);
    });
    var i = indexOf(current.activityId);
    if (!$('lcds-prev')) return;
    $('lcds-prev').disabled = busy || finished || i <= 0 || !flowOk(i, i - 1);
    $('lcds-next').disabled = busy || finished || i < 0 || i >= nav.order.length - 1 || !flowOk(i, i + 1);
  }
  /** SCORM 2004: the table of contents enables what a choice may select; a button shows when its request is valid. */
  function renderSeqNav() {
    var now = sq.nav, v = sq.shown || now, o = v.offer || v;
    nav.toc.forEach(function (e) {
      if (e.kind !== 'item') return;
      if (now.completion && now.completion[e.id]) e.completion = now.completion[e.id];
      if (now.success && now.success[e.id]) e.success = now.success[e.id];
    });
    // Selection and randomization of children: the entries follow the order of the attempts (children not selected are left out).
    if (now.order) { var pos = {}; now.order.forEach(function (id, i) { pos[id] = i; }); nav.toc.sort(function (a, b) { return (a.id in pos ? pos[a.id] : 1e9) - (b.id in pos ? pos[b.id] : 1e9); }); }
    renderProgress();
    renderToc(function (e) { return o.choice.indexOf(e.id) >= 0; }, function (e) { navigate('{target=' + e.id + '}choice'); });
    // PlayerReturnToLmsAction SuspendAll / ExitAll: the Exit button does that alone (no Suspend button beside it).
    var only = returnToLms() === 'SuspendAll' || returnToLms() === 'ExitAll';
    var buttons = { 'lcds-prev': o.previous, 'lcds-next': o.continue, 'lcds-exit': v[exitRequest()], 'lcds-suspend': v.suspendAll && !only };
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
  function postNav(body) {
    return fetch(cfg.navUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) { return r.json().then(function (b) { if (!r.ok) throw new Error(b && b.message || ('HTTP ' + r.status)); return b; }); });
  }
  /**
   * Before a request that the rules may refuse unloads a running SCO, the server is asked (with the SCO's state
   * committed): a refused one leaves the SCO running and says why. Resolves to the refusal, or null.
   */
  function refusal(request) {
    if (terminated || !/^(continue|previous|\{target=[^}]*\}(choice|jump))$/.test(request)) return Promise.resolve(null);
    if (cfg.tracking) commit(api, null, false);
    return whenSettled().then(function () { return postNav({ request: request, check: true }); })
      .then(function (out) { return out && out.error ? out : null; }, function () { return null; });
  }
  function returnToLms() { return (cfg.exit && cfg.exit.returnToLms) || 'Legacy'; }
  /** The request of the Exit ("return to LMS") button of a sequenced course. */
  function exitRequest() { return returnToLms() === 'SuspendAll' ? 'suspendAll' : 'exitAll'; }
  /** SCORM 2004: sends a navigation request to the server (after unloading the SCO) and runs what it answers. */
  function navigate(request) {
    if (!sq || busy || finished) return;
    busy = true; renderNav();
    refusal(request).then(function (refused) {
      if (!refused) return go2004(request);
      busy = false;
      if (refused.nav) sq.nav = sq.shown = refused.nav;
      show(T.notAllowed.replace('{reason}', refused.error));
      renderNav();
    });
  }
  function go2004(request) {
    return unloadSco().then(function () {
      return postNav({ request: request });
    }).then(function (out) {
      busy = false;
      if (out.nav) sq.nav = sq.shown = out.nav;
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
      // Nothing to run (the current lesson was closed): the page says so, the buttons and contents lead on.
      if ($('lcds-closed')) $('lcds-closed').hidden = false;
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
    if ($('lcds-closed')) $('lcds-closed').hidden = true;
    // cmi5 launchMethod OwnWindow: the AU replaces this page; its returnURL leads back.
    // The AU replaces this page (cmi5 OwnWindow): the learner has not left, the AU's terminated ends the launch.
    if (ownWindow === undefined ? cfg.ownWindow : ownWindow) { cfg.exitUrl = null; location.assign(url); return; }
    if (!windowed) { $('lcds-sco').src = url; return; }
    if (popup && !popup.closed) { popup.location.href = url; popup.focus(); return; }
    var features = /WITHOUT_BROWSER_TOOLBAR/.test(cfg.launchType) ? ['popup=yes', 'toolbar=no', 'location=no', 'menubar=no', 'status=no', 'resizable=yes', 'scrollbars=yes'] : [];
    // PlayerDesiredWidth/Height/FullScreen: the size the content's window opens with.
    var d = UI.desired;
    if (d && d.fullScreen) features.push('left=0', 'top=0', 'width=' + screen.availWidth, 'height=' + screen.availHeight);
    else if (d && (d.width || d.height)) features.push('width=' + (d.width || window.innerWidth), 'height=' + (d.height || window.innerHeight));
    popup = window.open(url, 'lcds-content', features.join(','));
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
      sendLog(false);
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
  /**
   * PlayerTimeLimit: when the course's time runs out the session ends as the Exit button ends it (the SCO is unloaded
   * and its data saved) and the page says why; the course does not launch again.
   */
  function timeUp() {
    if (finished) return;
    if (busy) { setTimeout(timeUp, 500); return; }
    timedOut = true;
    if (sq) navigate(exitRequest()); else exit();
  }
  /** PlayerShowCloseItem: closes the current lesson alone (SCORM 2004: the exit request); the course goes on. */
  function closeLesson() {
    if (sq) { navigate('exit'); return; }
    if (busy || finished || terminated) return;
    busy = true; renderNav();
    unloadSco().then(function () { busy = false; $('lcds-closed').hidden = false; renderNav(); });
  }

  function leaving() {
    if (unloading) return;
    unloading = true;
    sendLog(true);
    if (cfg.exitUrl) { try { navigator.sendBeacon(cfg.exitUrl); } catch (e) { /* the launch keeps no exit time */ } }
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

  function on(id, handler) { var el = $(id); if (el) el.addEventListener('click', handler); }
  /** A button that shows or hides a panel (aria-expanded says which). */
  function toggles(buttonId, panelId) {
    on(buttonId, function () { var p = $(panelId), open = p.hidden; p.hidden = !open; $(buttonId).setAttribute('aria-expanded', String(open)); });
  }
  /** PlayerRequiredWidth/Height/FullScreen: the page tells the learner while the window is too small. */
  function checkSize() {
    var r = UI.required, box = $('lcds-size'); if (!r || !box) return;
    var w = window.innerWidth, h = window.innerHeight, text = '';
    if ((r.width && w < r.width) || (r.height && h < r.height)) {
      text = T.tooSmall.replace('{w}', String(r.width || w)).replace('{h}', String(r.height || h)).replace('{cw}', String(w)).replace('{ch}', String(h));
    }
    if (r.fullScreen && !document.fullscreenElement) text = (text ? text + ' ' : '') + T.needsFullScreen;
    $('lcds-size-text').textContent = text; box.hidden = !text;
  }
  /** PlayerPreventRightClick: no context menu on the player page, nor in the content it shows. */
  function noContextMenu(doc) { try { doc.addEventListener('contextmenu', function (e) { e.preventDefault(); }); } catch (e) { /* another origin */ } }
  function start() {
    if (typeof cfg.timeLeft === 'number') setTimeout(timeUp, cfg.timeLeft * 1000);
    if (nav && sq) {
      on('lcds-prev', function () { navigate('previous'); });
      on('lcds-next', function () { navigate('continue'); });
      on('lcds-exit', function () { navigate(exitRequest()); });
      on('lcds-suspend', function () { navigate('suspendAll'); });
    } else if (nav) {
      on('lcds-prev', function () { go(indexOf(current.activityId) - 1, false); });
      on('lcds-next', function () { go(indexOf(current.activityId) + 1, false); });
      on('lcds-exit', exit);
    } else if (sq) {
      // One SCO with the nav bar (PlayerShowNavBar): its Exit and Suspend are requests to the sequencer too.
      on('lcds-exit', function () { navigate('exitAll'); });
      on('lcds-suspend', function () { navigate('suspendAll'); });
    } else on('lcds-exit', exit);
    on('lcds-close', closeLesson);
    toggles('lcds-help-button', 'lcds-help');
    toggles('lcds-toc-toggle', 'lcds-toc');
    on('lcds-fullscreen', function () { if (document.documentElement.requestFullscreen) document.documentElement.requestFullscreen().catch(function () {}); });
    if (UI.required) { window.addEventListener('resize', checkSize); document.addEventListener('fullscreenchange', checkSize); checkSize(); }
    if (UI.preventRightClick) {
      noContextMenu(document);
      $('lcds-sco').addEventListener('load', function () { try { noContextMenu($('lcds-sco').contentDocument); } catch (e) { /* another origin */ } });
    }
    renderNav();
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
      if (st.registrationCompletion) course = { completion: st.registrationCompletion, success: st.registrationSuccess };
      if (st.exited && !terminated) { aiccExit = st.exit || ''; onFinish(api); }
    }, function () {}).then(function () { setTimeout(watchAicc, 1500); });
  }
  if (cfg.aiccUrl) setTimeout(watchAicc, 1500);
  // xAPI / cmi5: the content reports to the LRS; the table of contents follows the registration from the server.
  function refreshStatus() {
    if (!cfg.statusUrl || unloading) return Promise.resolve();
    return fetch(cfg.statusUrl, { credentials: 'same-origin', cache: 'no-store' }).then(function (r) { return r.ok ? r.json() : null; }).then(function (st) {
      if (st && st.completion) for (var id in st.completion) markCompletion(id, st.completion[id]);
    }, function () {});
  }
  function watchStatus() {
    if (finished || unloading) return;
    (terminated ? Promise.resolve() : refreshStatus()).then(function () { setTimeout(watchStatus, 4000); });
  }
  if (cfg.statusUrl) setTimeout(watchStatus, 4000);
  /** A cmi5 AU went to its returnURL: it is done; a course of several AUs shows its table of contents, a one-AU course ends. */
  function auReturned() {
    if (busy || finished) return;
    terminated = true;
    if (!nav) { finished = true; afterSettled(); return; }
    busy = true; renderNav();
    blankContent().then(function () { busy = false; return refreshStatus(); }).then(renderNav);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start); else start();
})();
`;
