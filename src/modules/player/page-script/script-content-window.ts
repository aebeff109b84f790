/** Part of the player page's script (PLAYER_SCRIPT in player-page.ts, one function scope): where the content runs (the player's frame or a window of its own), switching activities, leaving the page. */
export const SCRIPT_CONTENT_WINDOW = String.raw`  // ---- where the content runs: the player's frame, or (PlayerLaunchType NEW_WINDOW…) a window of its own ----
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
      post(cfg.commitUrl, ending(payload), true).catch(function () {});
    } else if (pending) { var p = pending; pending = null; post(cfg.commitUrl, ending(p), true).catch(function () {}); }
    // A commit still on its way without keepalive (the SCO's last one, sent as it terminated) may be cut off with
    // the page: send it again with keepalive (the server applies a sequence number once).
    else if (inflight) post(cfg.commitUrl, ending(inflight), true).catch(function () {});
    else if (!finished) endCommit();
  }
  window.addEventListener('pagehide', function () { leaving(); closePopup(); });
  window.addEventListener('beforeunload', function () { if (pending || sending) leaving(); });

`;
