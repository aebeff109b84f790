import type { MediaKind } from '../courses/packages/media-parser';
import { escapeHtml } from './player-errors';

/**
 * MediaContentCompletionThreshold (percent of a video or audio file played that completes it) and
 * PDFContentPageDurationThreshold (seconds a PDF page must stay shown before it counts), as the launch read them.
 */
export interface MediaThresholds {
  completionPercent: number;
  pdfPageSeconds: number;
}
export const DEFAULT_MEDIA_THRESHOLDS: MediaThresholds = { completionPercent: 95, pdfPageSeconds: 5 };

/** Where pdf.js is served from (the pdfjs-dist build in node_modules). */
export const PDFJS_ASSETS = { 'pdf.min.mjs': 'pdfjs-dist/build/pdf.min.mjs', 'pdf.worker.min.mjs': 'pdfjs-dist/build/pdf.worker.min.mjs' } as const;

/**
 * The viewer of a media course (a single PDF, video or audio file), run by the player where a SCO would run. It is
 * the course's SCO: it finds the player's SCORM 2004 API, reports progress (`progress_measure`, `location`) while
 * the learner watches, listens or pages through, and `completed` once the end is reached (the video or audio
 * ended, the PDF's last page was shown), with the session time. Leaving before the end suspends, and the next
 * launch resumes where the learner was.
 */
export function mediaViewerPage(media: { kind: MediaKind; file: string; title: string; thresholds: MediaThresholds }, nonce: string): string {
  // A referenced media file (noUpload import) plays from its own URL; an uploaded one from the course's content.
  const src = /^https?:\/\//i.test(media.file) ? media.file : `content/${media.file.split('/').map(encodeURIComponent).join('/')}`;
  const body =
    media.kind === 'pdf'
      ? `<div id="bar"><button type="button" id="prev">Previous page</button><span id="pages" aria-live="polite">Loading…</span><button type="button" id="next">Next page</button></div>
<div id="stage"><canvas id="page"></canvas></div>
<script type="module" nonce="${nonce}">
import * as pdfjs from '/player/assets/pdf.min.mjs';
pdfjs.GlobalWorkerOptions.workerSrc = '/player/assets/pdf.worker.min.mjs';
window.lcdsMedia.pdf(pdfjs);
</script>`
      : `<${media.kind} id="media" controls preload="metadata" src="${escapeHtml(src)}"></${media.kind}>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(media.title)}</title>
<style>html,body{margin:0;height:100%;font:15px system-ui,sans-serif;background:#222;color:#eee}
video{display:block;width:100%;height:100%;background:#000}audio{display:block;width:90%;margin:4em auto}
#bar{display:flex;gap:1em;align-items:center;justify-content:center;padding:.4em;background:#333}#bar button{font:inherit;padding:.3em .9em}
#stage{height:calc(100% - 2.6em);overflow:auto;text-align:center}#page{margin:1em auto;background:#fff;max-width:95%}</style>
<script id="lcds-media" type="application/json">${JSON.stringify({ kind: media.kind, src, ...media.thresholds }).replace(/</g, '\\u003c')}</script>
<script src="/player/assets/media.js"></script>
</head><body>${body}</body></html>`;
}

/**
 * The viewer's policy: its own scripts (the PDF viewer's inline module by nonce), media and PDFs from the course's
 * content or the referenced file's own URL, pdf.js's worker.
 */
export const MEDIA_PAGE_POLICY = (nonce: string) => ({
  'default-src': ["'self'"],
  'script-src': ["'self'", `'nonce-${nonce}'`],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:', 'blob:'],
  'media-src': ['*', 'data:', 'blob:'],
  'connect-src': ['*'],
  'worker-src': ["'self'", 'blob:'],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
});

/** The viewer's script (served as /player/assets/media.js). */
export const MEDIA_SCRIPT = String.raw`(function () {
  'use strict';
  var cfg = JSON.parse(document.getElementById('lcds-media').textContent);
  function find(w) { for (var i = 0; w && i < 10; i++) { try { if (w.API_1484_11) return w.API_1484_11; } catch (e) { return null; } if (w.parent === w) break; w = w.parent; } return null; }
  var api = find(window.parent) || (window.opener ? find(window.opener) : null);
  var started = Date.now(), done = false, ended = false, best = 0;
  function iso(ms) { return 'PT' + Math.max(0, Math.round(ms / 10) / 100) + 'S'; }
  function set(k, v) { if (api && !ended) api.SetValue(k, String(v)); }
  function progress(p, location) {
    if (!api || ended) return;
    best = Math.max(best, Math.min(1, p));
    set('cmi.progress_measure', best.toFixed(3));
    set('cmi.location', location);
    set('cmi.session_time', iso(Date.now() - started));
    if (!done && best < 1 && api.GetValue('cmi.completion_status') !== 'completed') set('cmi.completion_status', 'incomplete');
  }
  function complete(location) {
    if (!api || ended) return;
    done = true;
    set('cmi.progress_measure', '1');
    set('cmi.location', location);
    set('cmi.completion_status', 'completed');
    set('cmi.session_time', iso(Date.now() - started));
    api.Commit('');
  }
  function finish() {
    if (!api || ended) return;
    set('cmi.session_time', iso(Date.now() - started));
    set('cmi.exit', done ? 'normal' : 'suspend');
    api.Commit('');
    api.Terminate('');
    ended = true;
  }
  var resumeAt = null;
  if (api) {
    api.Initialize('');
    if (api.GetValue('cmi.entry') === 'resume') resumeAt = api.GetValue('cmi.location');
    done = api.GetValue('cmi.completion_status') === 'completed';
  }
  window.addEventListener('pagehide', finish);
  window.lcdsMedia = { finish: finish, state: function () { return { api: !!api, done: done, best: best }; } };

  if (cfg.kind !== 'pdf') {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', play); else play();
    return;
  }
  function play() {
    var el = document.getElementById('media'), last = 0;
    el.addEventListener('loadedmetadata', function () { var t = Number(resumeAt); if (t > 0 && t < el.duration) el.currentTime = t; });
    el.addEventListener('timeupdate', function () {
      if (!el.duration) return;
      // MediaContentCompletionThreshold: playing this share of the file completes it.
      if (!done && el.currentTime / el.duration * 100 >= cfg.completionPercent) { complete(el.currentTime.toFixed(1)); return; }
      if (Date.now() - last < 2000) return;
      last = Date.now();
      progress(el.currentTime / el.duration, el.currentTime.toFixed(1));
    });
    el.addEventListener('ended', function () { complete(el.currentTime.toFixed(1)); });
  }

  window.lcdsMedia.pdf = function (pdfjs) {
    var doc = null, page = 1, rendering = false, counting = null;
    var canvas = document.getElementById('page'), label = document.getElementById('pages');
    function show(n) {
      if (!doc || rendering) return;
      page = Math.max(1, Math.min(doc.numPages, n));
      rendering = true;
      doc.getPage(page).then(function (p) {
        var viewport = p.getViewport({ scale: 1.3 });
        canvas.width = viewport.width; canvas.height = viewport.height;
        return p.render({ canvasContext: canvas.getContext('2d'), viewport: viewport }).promise;
      }).then(function () {
        rendering = false;
        label.textContent = 'Page ' + page + ' of ' + doc.numPages;
        document.getElementById('prev').disabled = page <= 1;
        document.getElementById('next').disabled = page >= doc.numPages;
        document.body.setAttribute('data-page', String(page));
        // PDFContentPageDurationThreshold: a page counts once it has stayed shown that long (the last one completes).
        var shown = page;
        clearTimeout(counting);
        counting = setTimeout(function () {
          if (shown !== page) return;
          if (page >= doc.numPages) complete(String(page)); else progress(page / doc.numPages, String(page));
        }, cfg.pdfPageSeconds * 1000);
        progress((page - 1) / doc.numPages, String(page));
      }, function () { rendering = false; label.textContent = 'This page could not be shown.'; });
    }
    document.getElementById('prev').addEventListener('click', function () { show(page - 1); });
    document.getElementById('next').addEventListener('click', function () { show(page + 1); });
    document.addEventListener('keydown', function (e) { if (e.key === 'ArrowRight' || e.key === 'PageDown') show(page + 1); if (e.key === 'ArrowLeft' || e.key === 'PageUp') show(page - 1); });
    pdfjs.getDocument({ url: cfg.src, isEvalSupported: false }).promise.then(function (d) {
      doc = d;
      document.body.setAttribute('data-pages', String(d.numPages));
      show(Number(resumeAt) || 1);
    }, function () { label.textContent = 'This document could not be opened.'; });
  };
})();
`;
