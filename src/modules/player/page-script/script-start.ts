/** Part of the player page's script (PLAYER_SCRIPT in player-page.ts, one function scope): the page's start, and the AICC and xAPI/cmi5 status watchers; closes the script. */
export const SCRIPT_START = String.raw`  function on(id, handler) { var el = $(id); if (el) el.addEventListener('click', handler); }
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
    // PlayerAlwaysFlowToFirstSco NO: the rules delivered nothing; the learner chooses from the table of contents.
    if (cfg.undelivered) { terminated = true; if ($('lcds-closed')) $('lcds-closed').hidden = false; return; }
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
