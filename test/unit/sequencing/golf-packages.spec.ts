/** The SCORM 2004 sequencing fixture packages (Rustici golf examples): the engine plays them through, as flow allows. */
import { join } from 'node:path';
import { parseScorm } from '../../../src/modules/courses/packages/scorm-parser';
import { SequencingEngine } from '../../../src/modules/sequencing/sequencing-engine';
import { cleanupFixtures, fixtureSource, PACKAGES_DIR } from '../packages/fixture-source';

afterAll(cleanupFixtures);

const CONTENT = ['playing_item', 'etuqiette_item', 'handicapping_item', 'havingfun_item'];

async function engineFor(file: string): Promise<SequencingEngine> {
  const pkg = await parseScorm(fixtureSource(join(PACKAGES_DIR, file)));
  return SequencingEngine.create({ rootActivity: pkg.rootActivity, packageData: pkg.packageData });
}

describe.each(['scorm2004-3rd-golf-seq-forced-sequential.zip', 'scorm2004-3rd-golf-seq-posttest-rollup.zip', 'scorm2004-4th-golf-seq-posttest-rollup.zip'])('%s', (file) => {
  it('forces the order: only what was reached may be chosen, the next SCO opens once the previous one is completed', async () => {
    const e = await engineFor(file);
    expect(e.navigate('start').deliver).toBe('playing_item');
    expect(e.validRequests()).toMatchObject({ continue: true, choice: ['playing_item'] });
    expect(e.navigate({ type: 'choice', target: 'assessment_item' }).error).toBeDefined();
    expect(e.status('playing_item')).toMatchObject({ active: true, completion: 'unknown' }); // the refused choice ended nothing
    const path = ['playing_item'];
    for (let i = 0; i < 6; i++) {
      e.reportRuntime(e.currentActivity as string, { completionStatus: 'completed', successStatus: 'passed', scoreScaled: 0.9 });
      const r = e.navigate('continue');
      if (!r.deliver) {
        expect(r.ended).toBe(true);
        break;
      }
      path.push(r.deliver);
    }
    expect(path).toEqual([...CONTENT, 'assessment_item']);
    expect(e.status(e.definition.root)).toMatchObject({ completion: 'completed', success: 'passed', active: false });
  });
});
