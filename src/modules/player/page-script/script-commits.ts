/** Part of the player page's script (PLAYER_SCRIPT in player-page.ts, one function scope): commits: the SCORM API (scorm-again) and its commits to the server (sequence numbers, retries, keepalive at unload). */
export const SCRIPT_COMMITS = String.raw`  // PlayerRollupRuntimeAtScoUnload NO: the commits do not roll the registration up; the page's session end does
  // (endSent: it was said; navEnded: a navigation request ended the session, and rolled up as the rules say).
  var endSent = false, navEnded = false;
  /** Marks a commit as the session's last (deferred rollup): the server rolls the registration up with it. */
  function ending(payload) { if (cfg.deferRollup && !navEnded) { payload.end = true; endSent = true; } return payload; }
  /** Deferred rollup: the session ends with everything saved; the server rolls the registration up from it. */
  function endCommit() {
    if (!cfg.deferRollup || !cfg.tracking || endSent || navEnded || fatal || current.activityId === null) return;
    endSent = true;
    post(cfg.commitUrl, { seq: ++seq, activityId: current.activityId, end: true }, true).catch(function () {});
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
          // 429 (LCDS_RATE_LIMIT_PLAYER): try again when the server says.
          if (r.status === 429) e.retryAfterMs = (Number(r.headers.get('retry-after')) || 1) * 1000;
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
      setTimeout(flush, Math.max((err && err.retryAfterMs) || 0, Math.min(15000, 500 * Math.pow(2, failures - 1))));
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
`;
