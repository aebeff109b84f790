import { ZipFile } from 'yazl';

/** A single-SCO SCORM 2004 4th edition package whose SCO page is never run (the benchmark commits over HTTP). */
export async function scorm2004Package(): Promise<Buffer> {
  const manifest = `<?xml version="1.0"?><manifest identifier="bench-commit" version="1" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
<metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
<organizations default="org"><organization identifier="org"><title>Runtime commit benchmark</title>
<item identifier="sco-1" identifierref="res-1"><title>The lesson</title></item></organization></organizations>
<resources><resource identifier="res-1" type="webcontent" adlcp:scormType="sco" href="index.html"><file href="index.html"/></resource></resources></manifest>`;
  const zip = new ZipFile();
  zip.addBuffer(Buffer.from(manifest), 'imsmanifest.xml');
  zip.addBuffer(Buffer.from('<!doctype html><title>bench</title>'), 'index.html');
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Printable, poorly compressible text of n characters (suspend data as content tools write it). */
function filler(n: number, seed: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let x = seed >>> 0 || 1;
  let out = '';
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out += alphabet[(x >>> 0) % alphabet.length];
  }
  return out;
}

/**
 * The flat SCORM 2004 data model a realistic SCO commits (as scorm-again renders it): status, location, score,
 * progress, session time, `suspendBytes` of suspend data and `interactions` interactions with a correct-response
 * pattern, learner response, result, latency, timestamp and description. `step` varies what changes per commit.
 */
export function commitCmi(step: number, learner: number, suspendBytes = 4096, interactions = 10): Record<string, string> {
  const cmi: Record<string, string> = {
    'cmi.completion_status': 'incomplete',
    'cmi.success_status': 'unknown',
    'cmi.location': `page-${step % 40}`,
    'cmi.progress_measure': String(Math.min(0.99, (step % 100) / 100)),
    'cmi.score.scaled': String(((step * 7) % 100) / 100),
    'cmi.score.raw': String((step * 7) % 100),
    'cmi.score.min': '0',
    'cmi.score.max': '100',
    'cmi.session_time': `PT${step * 5}S`,
    'cmi.exit': 'suspend',
    'cmi.suspend_data': filler(suspendBytes, learner * 1_000_003 + step),
  };
  for (let i = 0; i < interactions; i++) {
    const p = `cmi.interactions.${i}`;
    cmi[`${p}.id`] = `urn:bench:question-${i}`;
    cmi[`${p}.type`] = 'choice';
    cmi[`${p}.timestamp`] = '2026-01-01T10:00:00.0Z';
    cmi[`${p}.weighting`] = '1';
    cmi[`${p}.learner_response`] = `choice-${(step + i) % 4}`;
    cmi[`${p}.correct_responses.0.pattern`] = 'choice-2';
    cmi[`${p}.result`] = (step + i) % 4 === 2 ? 'correct' : 'incorrect';
    cmi[`${p}.latency`] = 'PT12S';
    cmi[`${p}.description`] = `Question ${i + 1}: which of these answers is right?`;
  }
  return cmi;
}
