/** Part of the player page's script (PLAYER_SCRIPT in player-page.ts, one function scope): exit actions: what the page does when a SCO finishes (the exit settings, the course's end, the return to the LMS). */
export const SCRIPT_EXIT_ACTIONS = String.raw`  function stopped(reason) {
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
    endCommit();
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

`;
