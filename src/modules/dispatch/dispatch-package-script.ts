/**
 * The script of a dispatch package's launch page (index.html), run inside the client LMS on the LMS's origin. `C` is
 * the package's configuration (see dispatch-package.ts). It finds the LMS's runtime API the standard way (parents,
 * then openers), reads the learner, signs a short-lived launch token with the dispatch's secret (HMAC-SHA256, Web
 * Crypto; the time and nonce make it single-use), frames LCDS's launch page with it, and writes what LCDS relays
 * (postMessage, accepted only from LCDS's origin and from that frame) into the LMS's API.
 */
export const PACKAGE_SCRIPT = String.raw`(function () {
  var v12 = C.version === '1.2';
  var N = v12 ? { api: 'API', init: 'LMSInitialize', get: 'LMSGetValue', set: 'LMSSetValue', commit: 'LMSCommit', finish: 'LMSFinish' }
              : { api: 'API_1484_11', init: 'Initialize', get: 'GetValue', set: 'SetValue', commit: 'Commit', finish: 'Terminate' };
  var api = null, frame = null, finished = false, last = null;
  function say(text) { var p = document.getElementById('lcds-message'); p.textContent = text; p.style.display = 'block'; }
  function findIn(w) {
    for (var i = 0; w && i < 500; i++) {
      try { if (w[N.api]) return w[N.api]; } catch (e) { return null; }
      if (!w.parent || w.parent === w) return null;
      w = w.parent;
    }
    return null;
  }
  function findApi() {
    var a = findIn(window);
    try { if (!a && window.top && window.top.opener) a = findIn(window.top.opener); } catch (e) { a = null; }
    try { if (!a && window.opener) a = findIn(window.opener); } catch (e) { a = null; }
    return a;
  }
  function call(name, a, b) { try { return String(b === undefined ? api[name](a === undefined ? '' : a) : api[name](a, b)); } catch (e) { return ''; } }
  function set(el, value) { if (value !== undefined && value !== null) call(N.set, el, String(value)); }
  function b64url(bytes) { var s = ''; for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]); return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''); }
  function utf8(text) { return new TextEncoder().encode(text); }
  function sign(payload) {
    return crypto.subtle.importKey('raw', utf8(C.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
      .then(function (key) { return crypto.subtle.sign('HMAC', key, utf8(payload)); })
      .then(function (sig) { return payload + '.' + b64url(new Uint8Array(sig)); });
  }
  function serverTime() {
    // The token's time is LCDS's, not the learner's computer's (whose clock may be off).
    return fetch(C.lcds + '/dispatch/clock', { cache: 'no-store', credentials: 'omit' })
      .then(function (r) { return r.json(); }).then(function (j) { return j.now; })
      .catch(function () { return Math.floor(Date.now() / 1000); });
  }
  function hms(s) { s = Math.max(0, Math.round(s)); var h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60; return (h < 10 ? '000' : h < 100 ? '00' : h < 1000 ? '0' : '') + h + ':' + (m < 10 ? '0' : '') + m + ':' + (r < 10 ? '0' : '') + r; }
  function write(p, final) {
    if (!p || finished) return;
    var done = p.completion === 'COMPLETED';
    if (v12) {
      var status = p.success === 'PASSED' ? 'passed' : p.success === 'FAILED' ? 'failed' : done ? 'completed' : p.completion === 'INCOMPLETE' ? 'incomplete' : null;
      set('cmi.core.lesson_status', status);
      if (p.score !== undefined) { set('cmi.core.score.raw', Math.round(p.score * 10000) / 100); set('cmi.core.score.min', 0); set('cmi.core.score.max', 100); }
      set('cmi.core.session_time', hms(p.sessionSeconds));
      set('cmi.suspend_data', 'lcds-dispatch');
      set('cmi.core.exit', done ? '' : 'suspend');
    } else {
      set('cmi.completion_status', done ? 'completed' : p.completion === 'INCOMPLETE' ? 'incomplete' : 'unknown');
      set('cmi.success_status', p.success === 'PASSED' ? 'passed' : p.success === 'FAILED' ? 'failed' : 'unknown');
      if (p.score !== undefined) { set('cmi.score.scaled', p.score); set('cmi.score.raw', Math.round(p.score * 10000) / 100); set('cmi.score.min', 0); set('cmi.score.max', 100); }
      set('cmi.session_time', 'PT' + Math.max(0, Math.round(p.sessionSeconds)) + 'S');
      set('cmi.suspend_data', 'lcds-dispatch');
      set('cmi.exit', done ? 'normal' : 'suspend');
    }
    call(N.commit);
    if (final) { finished = true; call(N.finish); }
  }
  function onMessage(e) {
    if (e.origin !== C.origin || !frame || e.source !== frame.contentWindow) return;
    var d = e.data;
    if (!d || d.lcdsDispatch !== 1) return;
    if (d.kind === 'progress') { last = d.progress; write(d.progress, false); }
    else if (d.kind === 'exit') write(d.progress || last, true);
  }
  function start() {
    api = findApi();
    if (!api) { say('This course could not find its learning management system (no SCORM ' + (v12 ? '1.2' : '2004') + ' API).'); return; }
    if (call(N.init) !== 'true') { say('The learning management system refused to start this course.'); return; }
    if (!window.crypto || !crypto.subtle) { say('This course needs a secure (https) page to start.'); return; }
    var id = call(N.get, v12 ? 'cmi.core.student_id' : 'cmi.learner_id');
    var name = call(N.get, v12 ? 'cmi.core.student_name' : 'cmi.learner_name');
    if (!id) { say('The learning management system did not say who the learner is.'); return; }
    window.addEventListener('message', onMessage);
    window.addEventListener('pagehide', function () { if (!finished) write(last, true); });
    serverTime().then(function (now) {
      var nonce = b64url(crypto.getRandomValues(new Uint8Array(18)));
      var payload = b64url(utf8(JSON.stringify({ k: C.key, l: id, n: name, o: location.origin, t: now, r: nonce, v: C.version, c: C.cssUrl || undefined })));
      return sign(payload);
    }).then(function (token) {
      frame = document.createElement('iframe');
      frame.id = 'lcds-frame';
      frame.title = C.title;
      frame.setAttribute('allow', 'fullscreen; autoplay');
      frame.src = C.lcds + '/dispatch/launch?token=' + encodeURIComponent(token);
      document.body.appendChild(frame);
    }, function () { say('This course could not start.'); });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start); else start();
})();`;
