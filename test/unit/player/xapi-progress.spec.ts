/** Interactions from xAPI statements (TinCanInteractionsEnabled): which statements bring one, and how they merge. */
import type { ActivityResult } from '../../../src/modules/registrations/registration-types';
import { applyXapiInteractions, CMI_INTERACTION, progressStatementsOf } from '../../../src/modules/player/xapi-progress';
import { SCORM_PROFILE } from '../../../src/modules/player/launch-statements/scorm-profile';
import { agentKey } from '../../../src/modules/xapi/lrs/statement-keys';

const learner = { objectType: 'Agent', account: { homePage: 'https://lcds.example', name: 'learner-1' } };
const other = { objectType: 'Agent', account: { homePage: 'https://lcds.example', name: 'learner-2' } };
const registration = '0f4b9d9a-5f1e-4c59-9d0e-5d1f5c2a8e11';
const answered = (id: string, response: string, timestamp: string, actor: object = learner, extra: object = {}) => ({
  actor,
  verb: { id: 'http://adlnet.gov/expapi/verbs/answered' },
  object: { objectType: 'Activity', id, definition: { type: CMI_INTERACTION, interactionType: 'fill-in', name: { 'en-GB': id } } },
  result: { response },
  context: { registration, ...extra },
  timestamp,
});

describe('xAPI interactions (TinCanInteractionsEnabled)', () => {
  it('statements about cmi.interaction activities bring an interaction; others, and the SCORM profile statements of the player, none', () => {
    const byReg = progressStatementsOf([
      answered('q1', 'a', '2026-01-01T00:00:01Z'),
      { ...answered('q2', 'b', '2026-01-01T00:00:02Z'), object: { objectType: 'Activity', id: 'q2', definition: { type: 'http://adlnet.gov/expapi/activities/question' } } },
      answered('q3', 'c', '2026-01-01T00:00:03Z', learner, { contextActivities: { category: [{ id: SCORM_PROFILE }] } }),
    ]);
    const got = byReg.get(registration);
    expect(got?.statements).toEqual([]);
    expect(got?.interactions.map((i) => i.interaction)).toEqual([{ id: 'q1', type: 'FillIn', description: 'q1', timestamp: '2026-01-01T00:00:01Z', timestampUtc: '2026-01-01T00:00:01.000Z', learnerResponse: 'a' }]);
  });

  it('one interaction per id: a later statement replaces it, an older one arriving late does not; other actors change nothing', () => {
    const root = { id: 'course', runtime: { runtimeInteractions: [] } } as unknown as ActivityResult;
    const of = (...list: object[]) => progressStatementsOf(list).get(registration)!.interactions;
    const me = agentKey(learner)!;
    expect(applyXapiInteractions(root, of(answered('q1', 'first', '2026-01-01T00:00:01Z'), answered('q2', 'x', '2026-01-01T00:00:02Z')), me)).toBe(true);
    expect(applyXapiInteractions(root, of(answered('q1', 'third', '2026-01-01T00:00:09Z'), answered('q1', 'second', '2026-01-01T00:00:05Z')), me)).toBe(true);
    expect(applyXapiInteractions(root, of(answered('q1', 'late', '2026-01-01T00:00:00Z')), me)).toBe(false);
    expect(applyXapiInteractions(root, of(answered('q3', 'theirs', '2026-01-01T00:00:10Z', other)), me)).toBe(false);
    expect(root.runtime?.runtimeInteractions?.map((i) => [i.id, i.learnerResponse])).toEqual([
      ['q1', 'third'],
      ['q2', 'x'],
    ]);
  });
});
