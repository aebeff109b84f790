import { isAbsoluteUrl } from '../courses/packages/package-paths';
import { type CspDirectives, originSource } from '../../platform/http/security-headers';
import { escapeHtml } from './player-errors';
import { playerStrings } from './player-strings';
import type { PlayerPageModel } from './player.service';
import { SCORM12_RESPONSE_FORMATS } from './tracking-rules';
import { SCRIPT_CORE } from './page-script/script-core';
import { SCRIPT_HISTORY_CAPTURE } from './page-script/script-history-capture';
import { SCRIPT_COMMITS } from './page-script/script-commits';
import { SCRIPT_EXIT_ACTIONS } from './page-script/script-exit-actions';
import { SCRIPT_NAV_UI } from './page-script/script-nav-ui';
import { SCRIPT_CONTENT_WINDOW } from './page-script/script-content-window';
import { SCRIPT_START } from './page-script/script-start';

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
/**
 * The player page's policy: its own scripts only (the configuration is a JSON data block, not a script), inline
 * styles and the launch link's cssUrl, the SCO in a frame from anywhere (content is served here, but AUs of cmi5
 * and xAPI courses may live elsewhere), requests to LCDS only (and an enabled AI plugin partner's script and origin). Content pages are separate responses: this policy
 * does not reach into the SCO. The page itself may be framed by any site (LMSs and dispatch packages embed it).
 */
export function playerPagePolicy(model: { cssUrl?: string | null; aiPlugin?: { scriptUrl?: string | null } }): CspDirectives {
  const css = originSource(model.cssUrl);
  // An AI plugin partner's script (docs/aiplugin.md), and the requests it makes to its own origin.
  const partner = originSource(model.aiPlugin?.scriptUrl);
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'", ...(partner ? [partner] : [])],
    'style-src': ["'self'", "'unsafe-inline'", ...(css ? [css] : [])],
    'img-src': ["'self'", 'data:', 'blob:'],
    'font-src': ["'self'", 'data:', ...(css ? [css] : [])],
    'connect-src': ["'self'", ...(partner ? [partner] : [])],
    'frame-src': ['*', 'data:', 'blob:'],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'self'"],
  };
}

export function playerPage(model: PlayerPageModel): string {
  const multi = model.nav.order.length > 1;
  const windowed = model.launchType.startsWith('NEW_WINDOW');
  const { lang, strings: t } = playerStrings(model.culture);
  const afterClick = model.launchType.includes('AFTER_CLICK');
  const layout = layoutOf(model, multi);
  const config = {
    version: model.version,
    // PlayerAlwaysFlowToFirstSco NO: nothing was delivered (the learner chooses; no SCO runs until then).
    activityId: model.undelivered ? null : model.activityId,
    undelivered: model.undelivered === true,
    // PlayerRollupRuntimeAtScoUnload NO: the page tells the server when its session ends (the registration rolls up then).
    deferRollup: model.deferRollup === true,
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
    // The AI plugin, enabled for this course version: the partner's launch token and course options (docs/aiplugin.md).
    aiPlugin: model.aiPlugin ? { token: model.aiPlugin.token, nti: model.aiPlugin.nti, cta: model.aiPlugin.cta } : null,
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
${model.aiPlugin?.scriptUrl ? `<script src="${escapeHtml(model.aiPlugin.scriptUrl)}" defer></script>\n` : ''}</head><body class="${[multi || layout.bar ? 'lcds-multi' : '', windowed ? 'lcds-windowed' : ''].filter((c) => c).join(' ')}">
<div id="lcds-message" role="alert"></div>${
    model.ui.required ? `<div id="lcds-size" role="status" hidden><span id="lcds-size-text"></span>${model.ui.required.fullScreen ? ` ${button('lcds-fullscreen', t.fullScreen)}` : ''}</div>` : ''
  }
<div id="lcds-done"><h1>${escapeHtml(t.doneTitle)}</h1><p id="lcds-done-text">${escapeHtml(t.doneText)}</p></div>
${navHtml}${
    model.undelivered ? `<div id="lcds-closed" role="status">${escapeHtml(t.chooseText)}</div>` : layout.closeItem ? `<div id="lcds-closed" role="status" hidden>${escapeHtml(t.closedText)}</div>` : ''
  }<iframe id="lcds-sco" title="${escapeHtml(model.title)}"></iframe>${
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
 *
 * The script is written in parts by concern (`page-script/`), joined in this order into one function scope: their
 * variables and functions are shared, as in one file.
 */
export const PLAYER_SCRIPT = [SCRIPT_CORE, SCRIPT_HISTORY_CAPTURE, SCRIPT_COMMITS, SCRIPT_EXIT_ACTIONS, SCRIPT_NAV_UI, SCRIPT_CONTENT_WINDOW, SCRIPT_START].join('');
