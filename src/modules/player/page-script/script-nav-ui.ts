/** Part of the player page's script (PLAYER_SCRIPT in player-page.ts, one function scope): navigation UI: table of contents, progress bar, Previous / Continue / Exit, SCORM 2004 navigation requests. */
export const SCRIPT_NAV_UI = String.raw`  // ---- navigation (multi-SCO courses) ----
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
      if (out.ended) navEnded = true;
      if (out.ended || !nav) { finished = true; renderNav(); afterSettled(); return; }
      // Nothing to run (the current lesson was closed): the page says so, the buttons and contents lead on.
      if ($('lcds-closed')) { $('lcds-closed').textContent = T.closedText; $('lcds-closed').hidden = false; }
      renderNav();
    }, function () {
      busy = false; renderNav();
      show(T.nextFailed);
    });
  }
  window.lcdsNavigate = navigate;
`;
