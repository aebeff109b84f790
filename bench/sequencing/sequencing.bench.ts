/**
 * Sequencing engine benchmark: the CPU the SCORM 2004 engine costs the player per commit that changes the tracking
 * state, with the lookahead the page needs (`navOf`: the valid navigation requests, choice targets included), on
 * generated courses of 50 and 200 activities (clusters of SCOs, flow-only/forwardOnly clusters mixed with choice
 * clusters). In-process, no service: per commit what `PlayerCommitService.commit` does with the engine (restore the stored
 * state, `reportRuntime`, serialize, `navOf`), timed with `process.cpuUsage()`; between commits the learner moves on
 * (Continue, or a table-of-contents choice in choice clusters).
 *
 *   npm run bench:sequencing
 *
 * Settings (environment): BENCH_ROUNDS (6: walks through each course; the first one is a warm-up and not counted),
 * BENCH_REPEAT (5: each commit is timed that many times on the same stored state, the median counts),
 * BENCH_JSON (1: print the figures as JSON too), BENCH_ASSERT (1: exit 1 when the 200-activity p99 misses the goal).
 */
import { cpus, loadavg } from 'node:os';
import { parseScorm } from '../../src/modules/courses/packages/scorm-parser';
import type { PackageSource } from '../../src/modules/courses/packages/package-types';
import { engineOf, navOf, serializeEngine } from '../../src/modules/player/player-sequencing';
import type { SequencingDefinition } from '../../src/modules/sequencing/sequencing-definition';
import { SequencingEngine } from '../../src/modules/sequencing/sequencing-engine';
import { envNumber, fmtNumber, formatTable } from '../lib/format';
import { summarize, type Summary } from '../lib/stats';

const GOAL_MS = 5;
/** Each commit is timed this many times (BENCH_REPEAT); its median counts. */
const REPEAT = Math.max(1, envNumber('BENCH_REPEAT', 5));
const NS = `xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss"`;

/**
 * A course of `clusters` × `scos` SCOs (plus the clusters and the root): even clusters are sequential (choice off,
 * flow, forwardOnly), odd ones free (choice and flow); each SCO writes its primary objective to a shared objective
 * that the next SCO's skip rule reads, so rules, maps and rollup all take part.
 */
export function courseManifest(clusters: number, scos: number): string {
  const items: string[] = [];
  for (let c = 0; c < clusters; c++) {
    const mode = c % 2 === 0 ? '<imsss:controlMode choice="false" flow="true" forwardOnly="true"/>' : '<imsss:controlMode choice="true" flow="true"/>';
    const leaves: string[] = [];
    for (let i = 0; i < scos; i++) {
      const id = `c${c}s${i}`;
      const read = i > 0 ? `<imsss:mapInfo targetObjectiveID="g-c${c}s${i - 1}" readSatisfiedStatus="true" writeSatisfiedStatus="false"/>` : '';
      const skip = i > 0 ? '<imsss:sequencingRules><imsss:preConditionRule><imsss:ruleConditions><imsss:ruleCondition referencedObjective="prev" condition="satisfied" operator="not"/></imsss:ruleConditions><imsss:ruleAction action="disabled"/></imsss:preConditionRule></imsss:sequencingRules>' : '';
      const objectives = `<imsss:objectives><imsss:primaryObjective objectiveID="p"><imsss:mapInfo targetObjectiveID="g-${id}" writeSatisfiedStatus="true"/></imsss:primaryObjective>${i > 0 ? `<imsss:objective objectiveID="prev">${read}</imsss:objective>` : ''}</imsss:objectives>`;
      leaves.push(`<item identifier="${id}" identifierref="R"><title>${id}</title><imsss:sequencing>${skip}${objectives}</imsss:sequencing></item>`);
    }
    items.push(`<item identifier="c${c}"><title>Module ${c}</title>${leaves.join('')}<imsss:sequencing>${mode}</imsss:sequencing></item>`);
  }
  return `<?xml version="1.0"?>
<manifest identifier="M" ${NS}>
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="ORG"><organization identifier="ORG"><title>Course</title>${items.join('')}<imsss:sequencing><imsss:controlMode choice="true" flow="true"/></imsss:sequencing></organization></organizations>
  <resources><resource identifier="R" type="webcontent" adlcp:scormType="sco" href="a.html"><file href="a.html"/></resource></resources>
</manifest>`;
}

export async function courseDefinition(clusters: number, scos: number): Promise<SequencingDefinition> {
  const files: Record<string, string> = { 'imsmanifest.xml': courseManifest(clusters, scos), 'a.html': '<html></html>' };
  const source: PackageSource = { files: () => Object.keys(files), has: (p) => p in files, readText: (p) => Promise.resolve(files[p]) };
  const pkg = await parseScorm(source, { checkFiles: false });
  return SequencingEngine.create({ rootActivity: pkg.rootActivity, packageData: pkg.packageData }).definition;
}

/** One walk through the course: per delivered SCO one commit (completed, passed), then the next navigation request. */
function walk(def: SequencingDefinition, samples: number[] | undefined): number {
  let engine = SequencingEngine.create(def);
  let cur = engine.navigate('start').deliver;
  let state = serializeEngine(engine);
  let commits = 0;
  while (cur !== undefined) {
    // What PlayerCommitService.commit does with the engine, REPEAT times on the same stored state: the median is the
    // commit's cost (a single timing on a shared machine also measures whatever interrupted it).
    const times: number[] = [];
    let next = state;
    let nav: ReturnType<typeof navOf> | undefined;
    for (let r = 0; r < REPEAT; r++) {
      const t0 = process.cpuUsage();
      const e = engineOf(def, state);
      e.reportRuntime(cur, { completionStatus: 'completed', successStatus: 'passed', scoreScaled: 0.9 });
      next = serializeEngine(e);
      nav = next !== state ? navOf(e) : undefined;
      const used = process.cpuUsage(t0);
      times.push((used.user + used.system) / 1000);
    }
    samples?.push(times.sort((a, b) => a - b)[REPEAT >> 1]);
    commits++;
    state = next;
    engine = SequencingEngine.restore(def, state);
    // The learner moves on: Continue where it is valid, else the next choice the table of contents offers.
    const after = nav?.continue !== false ? engine.navigate('continue') : { ended: true };
    cur = after.deliver;
    if (after.error) {
      const pick = nav?.choice.find((id) => id !== cur && engine.status(id).attempts === 0);
      cur = pick !== undefined ? engine.navigate({ type: 'choice', target: pick }).deliver : undefined;
    }
    state = serializeEngine(engine);
  }
  return commits;
}

async function main(): Promise<void> {
  const rounds = Math.max(2, envNumber('BENCH_ROUNDS', 6));
  console.log(`sequencing engine benchmark — CPU per commit with lookahead (restore, reportRuntime, serialize, navOf), ${rounds - 1} measured walk(s) per course, each commit the median of ${REPEAT} timings`);
  console.log(`node ${process.version}, ${cpus().length} CPU(s) ${cpus()[0]?.model.trim() ?? ''}, load average ${loadavg()[0].toFixed(2)} before the run`);
  const shapes: Array<[string, number, number]> = [
    ['50 activities (4 × 11 SCOs)', 4, 11],
    ['200 activities (10 × 19 SCOs)', 10, 19],
  ];
  const rows: string[][] = [];
  const figures: Record<string, Summary> = {};
  for (const [name, clusters, scos] of shapes) {
    const def = await courseDefinition(clusters, scos);
    const samples: number[] = [];
    let commits = 0;
    for (let r = 0; r < rounds; r++) commits = walk(def, r === 0 ? undefined : samples);
    const s = summarize(samples);
    figures[name] = s;
    rows.push([name, String(def.order.length), String(commits), fmtNumber(s.p50, 2), fmtNumber(s.p99, 2), fmtNumber(s.max, 2), clusters === 10 ? (s.p99 <= GOAL_MS ? `ok (≤ ${GOAL_MS} ms)` : `MISS (≤ ${GOAL_MS} ms)`) : '']);
  }
  console.log('');
  console.log(formatTable(['course', 'activities', 'commits/walk', 'p50 ms CPU', 'p99 ms CPU', 'max ms CPU', 'goal (p99)'], rows));
  console.log(`\nload average ${loadavg()[0].toFixed(2)} after the run`);
  if (process.env.BENCH_JSON === '1') console.log(JSON.stringify(figures));
  const big = figures[shapes[1][0]];
  if (process.env.BENCH_ASSERT === '1' && big.p99 > GOAL_MS) process.exitCode = 1;
}

if (require.main === module) void main();
