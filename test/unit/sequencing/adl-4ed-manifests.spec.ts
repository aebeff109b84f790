/**
 * Model-level tests against ADL's SCORM 2004 4th Edition Test Suite: every one of its 189 manifests builds a
 * sequencing model, and the learner paths its test cases expect are replayed through the engine.
 *
 * adl-4ed-scenarios.json is derived from the test case descriptions of adlnet/SCORM-2004-4ed-Test-Suite
 * (`software_development/TestSuite/LMSRTE/Courses/TestCases/*.properties`, Apache-2.0): per test case the activity
 * each visit expects to be delivered, the run-time values the test SCO sets (cmi.completion_status,
 * cmi.success_status, cmi.score.scaled, cmi.progress_measure, cmi.objectives by id, cmi.exit), the objective values it
 * expects to read at launch, and the navigation request that ends the visit (adl.nav.request, or the learner's action
 * in the LMS's user interface).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ObjectiveState } from '../../../src/modules/sequencing/activity-tree';
import { SequencingEngine, type RuntimeResults } from '../../../src/modules/sequencing/sequencing-engine';
import { ADL_MANIFEST_DIRS, adlEngine, lookaheadOneByOne } from './sequencing-fixtures';

interface Step {
  deliver: string;
  nav?: string;
  ui?: string;
  /** After a relaunch the learner makes this request (the instruction says e.g. "relaunch … and then choose Activity 4"). */
  relaunchWith?: string;
  set?: Omit<RuntimeResults, 'objectives'> & { objectives?: Record<string, NonNullable<RuntimeResults['objectives']>[number]> };
  expect?: { objectives?: Record<string, { success?: string; completion?: string }> };
}
interface Scenario {
  start: string;
  /** "manualTT": the learner ends each visit with the LMS's buttons, which override the SCO's adl.nav.request. */
  tt?: string;
  /** The test case continues the one before it ("exit and relaunch" pairs, e.g. CO-07a then CO-07b). */
  continues?: boolean;
  /**
   * The test case starts with the system-wide shared objectives another test case left (objectivesGlobalToSystem):
   * OB-03c reads what OB-03a wrote; OB-03b in between keeps its objectives to itself (objectivesGlobalToSystem="false").
   */
  globalsFrom?: string;
  steps: Step[];
}

const scenarios = JSON.parse(readFileSync(join(__dirname, 'adl-4ed-scenarios.json'), 'utf8')) as Record<string, Scenario>;

const relaunch = (ui: string | undefined): boolean => !!ui && /^other:re ?launch/i.test(ui);
const suspendAndRelaunch = (ui: string | undefined): boolean => /^other:Suspend/.test(ui ?? '');
const exitAndRelaunch = (ui: string | undefined): boolean => /^other:Exit/.test(ui ?? '');
const replayableUi = (ui: string | undefined): boolean =>
  !(ui ?? '').startsWith('other:') || relaunch(ui) || suspendAndRelaunch(ui) || exitAndRelaunch(ui) || /^other:Root/.test(ui ?? '');

/** Replays a scenario; returns undefined when it matches, else a description of the first difference. */
/** Shared objective ids a test case's manifest names. */
const targets = (engine: SequencingEngine): Set<string> =>
  new Set(Object.values(engine.definition.activities).flatMap((a) => a.objectives.flatMap((o) => o.maps.map((m) => m.targetObjectiveID))));

/**
 * A test case that continues the one before it ("…b" after "…a") runs for the same learner, and the two share global
 * objectives (objectivesGlobalToSystem): the shared objectives the earlier case left are where the later one starts.
 */
async function sharedGlobals(tc: string): Promise<Record<string, ObjectiveState> | undefined> {
  const from = scenarios[tc]?.globalsFrom;
  if (from) {
    const out: { globals?: Record<string, ObjectiveState> } = {};
    await replay(from, scenarios[from], out);
    return out.globals;
  }
  const m = /^(.*?)([b-z])$/.exec(tc);
  if (!m || !scenarios[tc]?.continues) return undefined;
  const prev = `${m[1]}${String.fromCharCode(m[2].charCodeAt(0) - 1)}`;
  if (!scenarios[prev]?.continues) return undefined;
  const [mine, theirs] = [targets(await adlEngine(tc)), targets(await adlEngine(prev))];
  if (![...mine].some((t) => theirs.has(t))) return undefined;
  const out: { globals?: Record<string, ObjectiveState> } = {};
  await replay(prev, scenarios[prev], out);
  return out.globals;
}

async function replay(tc: string, sc: Scenario, out: { globals?: Record<string, ObjectiveState> } = {}): Promise<string | undefined> {
  const globals = out.globals === undefined ? await sharedGlobals(tc) : undefined;
  let engine = await adlEngine(tc, 1, globals);
  const data = engine.definition;
  // The test cases number activities ("Act3", "Choice~Activity 3"): the item titled "Activity 3", else the third item.
  const byNumber = (n: string): string =>
    data.order.find((id) => data.activities[id].title.trim() === `Activity ${n}`) ?? data.order[Number(n)] ?? `#${n}`;
  const resolve = (req: string): string => req.replace(/#(\d+)/, (_m, n: string) => byNumber(n));
  // Where flow cannot start the course the LMS shows its table of contents and the learner picks the first entry.
  const begin = (req: string): ReturnType<SequencingEngine['navigate']> => {
    const first = engine.navigate(req);
    if (!first.error || req !== 'start') return first;
    const pick = engine.validRequests().choice.find((id) => data.activities[id].children.length === 0);
    return pick ? engine.navigate({ type: 'choice', target: pick }) : first;
  };
  /** Per activity, the cmi.objectives.n.success_status its SCO left when it suspended its attempt. */
  const suspendedRte: Record<string, Record<string, string>> = {};
  let r = begin(resolve(sc.start));
  for (let i = 0; i < sc.steps.length; i++) {
    const step = { ...sc.steps[i], deliver: resolve(sc.steps[i].deliver) };
    // Debugging aid: SEQ_TRACE=<test case> prints every activity's status at each visit (SEQ_DEBUG=1: each difference).
    if (process.env.SEQ_TRACE === tc) {
      console.log(`visit ${i + 1} ${JSON.stringify(r)}\n` + data.order.map((id) => JSON.stringify(engine.status(id))).join('\n') + `\nglobals ${JSON.stringify(engine.globalObjectives())}`);
    }
    if (r.deliver !== step.deliver) return `visit ${i + 1}: expected ${step.deliver}, got ${JSON.stringify(r)}`;
    // The valid choices and previous (worked out from one copy of the state) are what trying each on its own copy finds.
    const valid = engine.validRequests();
    const lookahead = { choice: valid.choice, previous: valid.previous, continue: valid.continue && valid.continueLeads };
    const oneByOne = lookaheadOneByOne(engine);
    if (JSON.stringify(lookahead) !== JSON.stringify(oneByOne)) return `visit ${i + 1}: valid requests ${JSON.stringify(lookahead)}, one by one ${JSON.stringify(oneByOne)}`;
    for (const [id, want] of Object.entries(step.expect?.objectives ?? {})) {
      const objId = id === 'PRIMARYOBJ' ? data.activities[step.deliver].objectives.find((o) => o.primary)?.id ?? '' : id;
      const got = engine.objectiveData(step.deliver)[objId];
      if (!got) continue;
      // What the sequencer does not know, a resumed SCO still has in its own run-time data (the player restores the
      // cmi.objectives of a suspended attempt and lays the sequencer's known values over them).
      const kept = suspendedRte[step.deliver]?.[objId];
      const success = got.progressStatus ? (got.satisfiedStatus ? 'passed' : 'failed') : (kept ?? 'unknown');
      if (want.success && want.success !== success) return `visit ${i + 1} (${step.deliver}): objective ${objId} reads ${success}, expected ${want.success}`;
    }
    const ui = step.ui && !step.ui.startsWith('other:') ? step.ui : undefined;
    const nav = step.nav && step.nav !== '_none_' ? step.nav : undefined;
    const request = (sc.tt ?? '').includes('manualTT') ? ui ?? nav : nav ?? ui;
    if (!request && !replayableUi(step.ui)) return `visit ${i + 1}: no navigation request the model can replay (${step.ui ?? 'none'})`;
    if (!request || !/^abandon/.test(request)) {
      const { objectives, ...rest } = step.set ?? {};
      if (rest.exit === 'suspend') {
        const own = (suspendedRte[step.deliver] ??= {});
        for (const [id, v] of Object.entries(objectives ?? {})) if (v.successStatus) own[id] = v.successStatus;
      } else delete suspendedRte[step.deliver];
      const primaryId = data.activities[step.deliver].objectives.find((o) => o.primary)?.id ?? '';
      engine.reportRuntime(step.deliver, {
        ...rest,
        objectives: Object.entries(objectives ?? {}).map(([id, v]) => ({ ...v, id: id === 'PRIMARYOBJ' ? primaryId : id })),
      });
    }
    if (suspendAndRelaunch(step.ui) || exitAndRelaunch(step.ui)) {
      // The learner suspends (or exits) the course from the LMS's user interface, then launches it again.
      engine.navigate(suspendAndRelaunch(step.ui) ? 'suspendAll' : 'exitAll');
      engine = SequencingEngine.restore(data, JSON.stringify(engine.serialize()));
      r = begin(engine.suspendedActivity ? 'resumeAll' : 'start');
      continue;
    }
    r = request ? engine.navigate(resolve(request)) : engine.navigate('exitAll');
    // A request that is not valid now changes nothing: the player runs the current activity again (PlayerNavigationService.navigate).
    const cur = engine.currentActivity;
    if (r.error && cur !== undefined && engine.status(cur).active) r = { deliver: cur };
    if (/^other:Root/.test(step.ui ?? '') && !r.deliver) r = engine.navigate({ type: 'choice', target: data.root }); // the learner picks the course itself
    if (relaunch(step.ui) && !r.deliver) {
      // The learner closes the course and launches it again: a new sequencing session on the stored state.
      engine = SequencingEngine.restore(data, JSON.stringify(engine.serialize()));
      r = step.relaunchWith ? engine.navigate(resolve(step.relaunchWith)) : begin(engine.suspendedActivity ? 'resumeAll' : 'start');
    }
    if (i === sc.steps.length - 1 && !r.ended) return `after the last visit: expected the session to end, got ${JSON.stringify(r)}`;
  }
  out.globals = engine.globalObjectives();
  return undefined;
}

describe('ADL SCORM 2004 4th Edition test manifests', () => {
  const dirs = ADL_MANIFEST_DIRS();

  it('finds all 189 manifests', () => {
    expect(dirs).toHaveLength(189);
  });

  it.each(dirs)('%s builds a sequencing model and a start (or the choice the test begins with) is answered', async (dir) => {
    const engine = await adlEngine(dir.replace('LMSTestPackage_', ''));
    expect(Object.keys(engine.definition.activities).length).toBeGreaterThan(1);
    const r = engine.navigate('start');
    expect(r.deliver !== undefined || r.error !== undefined).toBe(true);
  });

  const replayable = Object.entries(scenarios).filter(([, sc]) => !sc.start.startsWith('other:') && sc.steps.every((s) => replayableUi(s.ui) || (s.nav && s.nav !== '_none_')));

  /**
   * Test cases the engine does not (yet) follow; each is asserted to still differ, so a fix shows up here. Empty since
   * the last seven (CM-10, CM-13, OB-03b, OB-03c, OB-14b, RU-13b, RU-13d) were resolved: see docs/sequencing.md for
   * how, and for the choices among them the SN book leaves open (CM-13, OB-03c, RU-13b, RU-13d).
   */
  const KNOWN_DIFFERENCES = new Set<string>([]);

  it('replays all the replayable test cases', () => {
    expect(replayable.length).toBe(181);
    expect(replayable.length - KNOWN_DIFFERENCES.size).toBeGreaterThanOrEqual(181);
  });

  it.each(replayable.filter(([tc]) => !KNOWN_DIFFERENCES.has(tc)))('%s: the learner path the test case expects', async (tc, sc) => {
    const diff = await replay(tc, sc);
    if (process.env.SEQ_DEBUG && diff) console.log(tc, diff);
    expect(diff).toBeUndefined();
  });

  const known = replayable.filter(([tc]) => KNOWN_DIFFERENCES.has(tc));
  if (known.length) {
    it.each(known)('%s: known difference from the test case', async (tc, sc) => {
      expect(await replay(tc, sc)).toBeDefined();
    });
  }
});
