/** Test helpers: sequencing engines from manifests (hand-written XML or the ADL 4th edition test manifests). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseScorm } from '../../../src/modules/courses/packages/scorm-parser';
import type { ObjectiveState } from '../../../src/modules/sequencing/activity-tree';
import { SequencingEngine, type NavigationRequest, type RuntimeResults } from '../../../src/modules/sequencing/sequencing-engine';
import { memorySource, SCORM_4ED_MANIFESTS_DIR } from '../packages/fixture-source';

const NS = `xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3" xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"
  xmlns:imsss="http://www.imsglobal.org/xsd/imsss"`;

/** A SCORM 2004 4th edition manifest around an organization body; every item with identifierref="R" launches a.html. */
export function manifestXml(orgBody: string, extra = ''): string {
  return `<?xml version="1.0"?>
<manifest identifier="M" ${NS}>
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="ORG"><organization identifier="ORG"><title>Course</title>${orgBody}</organization></organizations>
  <resources><resource identifier="R" type="webcontent" adlcp:scormType="sco" href="a.html"><file href="a.html"/></resource></resources>${extra}
</manifest>`;
}

/** A leaf item launching the shared SCO, with optional sequencing XML inside. */
export const leaf = (id: string, seq = ''): string => `<item identifier="${id}" identifierref="R"><title>${id}</title>${seq}</item>`;
export const cluster = (id: string, body: string, seq = ''): string => `<item identifier="${id}"><title>${id}</title>${body}${seq}</item>`;
export const sequencing = (inner: string): string => `<imsss:sequencing>${inner}</imsss:sequencing>`;

export async function engineFromXml(xml: string, seed = 1, globalObjectives?: Record<string, ObjectiveState>): Promise<SequencingEngine> {
  const pkg = await parseScorm(memorySource({ 'imsmanifest.xml': xml, 'a.html': '<html></html>' }), { checkFiles: false });
  return SequencingEngine.create({ rootActivity: pkg.rootActivity, packageData: pkg.packageData }, { seed, globalObjectives });
}

export async function engineFromOrg(orgBody: string, seed = 1): Promise<SequencingEngine> {
  return engineFromXml(manifestXml(orgBody), seed);
}

export const ADL_MANIFEST_DIRS = (): string[] =>
  require('node:fs')
    .readdirSync(SCORM_4ED_MANIFESTS_DIR)
    .filter((d: string) => d.startsWith('LMSTestPackage_'))
    .sort() as string[];

export async function adlEngine(testCase: string, seed = 1, globalObjectives?: Record<string, ObjectiveState>): Promise<SequencingEngine> {
  const xml = readFileSync(join(SCORM_4ED_MANIFESTS_DIR, `LMSTestPackage_${testCase}`, 'imsmanifest.xml'), 'utf8');
  return engineFromXml(xml, seed, globalObjectives);
}

/** Delivers, then reports the SCO's results, and returns the next delivery (or "END" / the error code). */
export function step(engine: SequencingEngine, req: NavigationRequest | string, results?: RuntimeResults): string {
  const cur = engine.currentActivity;
  if (cur && results) engine.reportRuntime(cur, results);
  const r = engine.navigate(req);
  if (r.error) return `ERR ${r.error.code}`;
  if (r.ended) return 'END';
  return r.deliver ?? 'NONE';
}

/**
 * The choice targets and previous as the engine once found them: each request tried on its own copy of the whole
 * engine (what `validRequests()` must still answer, from one copy for all of them).
 */
export function lookaheadOneByOne(engine: SequencingEngine): { choice: string[]; previous: boolean; continue: boolean } {
  const def = engine.definition;
  const saved = JSON.stringify(engine.serialize());
  const run = (req: NavigationRequest) => SequencingEngine.restore(def, saved).navigate(req);
  const delivers = (req: NavigationRequest): boolean => run(req).deliver !== undefined;
  const targets = engine.currentActivity === undefined ? def.order : def.order.filter((id) => id !== def.root);
  const next = run({ type: 'continue' });
  return {
    choice: targets.filter((id) => delivers({ type: 'choice', target: id })),
    previous: delivers({ type: 'previous' }),
    // Continue leads somewhere: it delivers an activity or ends the session.
    continue: next.deliver !== undefined || next.ended === true,
  };
}
