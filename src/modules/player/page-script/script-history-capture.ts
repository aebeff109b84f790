/** Part of the player page's script (PLAYER_SCRIPT in player-page.ts, one function scope): history capture: the SCO's API calls recorded for the launch's history log, sent in batches. */
export const SCRIPT_HISTORY_CAPTURE = String.raw`  // ---- the launch's history log: the SCO's API calls (call, arguments, result, error code), sent in batches ----
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

`;
