/**
 * initialRegistrationState is a whole RegistrationSchema, checked field by field: a wrong type stored in the
 * activity tree once broke every later launch of the registration (a 500 from the player).
 */
import { DataSource } from 'typeorm';
import { fixture, importCourse } from '../support/courses';
import { followLaunch } from '../support/player';
import { basic, call, startTestServer, TestServer } from '../support/test-server';
import { RegistrationInstanceEntity } from '../../src/modules/registrations/entities/registration-instance.entity';
import type { ActivityResult } from '../../src/modules/registrations/registration-types';

describe('registrations: initialRegistrationState is checked against RegistrationSchema', () => {
  let s: TestServer;
  let app: string;
  const learner = { id: 'learner-1' };
  const create = (body: Record<string, unknown>) => call(`${s.api}/registrations`, { method: 'POST', auth: app, json: body });
  const reg = (id: string, path = '', init: Parameters<typeof call>[1] = {}) => call(`${s.api}/registrations/${encodeURIComponent(id)}${path}`, { auth: app, ...init });
  const withState = (registrationId: string, initialRegistrationState: unknown) => create({ registrationId, courseId: 'c1', learner, initialRegistrationState });
  /** The golf course's tree with one child, as a client writes it. */
  const tree = (child: Record<string, unknown>, root: Record<string, unknown> = {}) => ({ activityDetails: { id: 'golf_sample_default_org', ...root, children: [{ id: 'item_1', ...child }] } });
  const launch = async (id: string) => {
    const link = await reg(id, '/launchLink', { method: 'POST', json: { redirectOnExitUrl: 'https://lms.example.com/done' } });
    expect(link.status).toBe(200);
    return followLaunch(s.baseUrl, link.body.launchLink);
  };

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'c1', fixture('scorm12-golf-runtime-basic.zip'));
  });
  afterAll(async () => {
    await s?.close();
  });

  it('refuses a number as an activity’s timeTracked with a 400 naming its path, and creates nothing', async () => {
    const r = await create({
      registrationId: 'ow',
      courseId: 'c1',
      learner: { id: 'x' },
      initialRegistrationState: { activityDetails: { id: 'golf_sample_default_org', children: [{ id: 'item_1', timeTracked: 5 }] } },
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('initialRegistrationState.activityDetails.children.0.timeTracked must be a time span HHHH:MM:SS[.SS], e.g. 0000:01:02.50');
    expect((await reg('ow', '', { method: 'HEAD' })).status).toBe(404);
  });

  it('refuses wrong types, unknown enum values, malformed times and unknown fields anywhere in the state', async () => {
    const refused: Array<[unknown, RegExp]> = [
      [tree({}, { runtime: 'str' }), /^initialRegistrationState\.activityDetails\.runtime /],
      [tree({}, { score: 5 }), /^initialRegistrationState\.activityDetails\.score /],
      [tree({}, { objectives: 'x' }), /^initialRegistrationState\.activityDetails\.objectives /],
      [tree({}, { attempts: 'x' }), /^initialRegistrationState\.activityDetails\.attempts /],
      [tree({}, { attempts: -1 }), /^initialRegistrationState\.activityDetails\.attempts /],
      [tree({}, { completionAmount: 'x' }), /^initialRegistrationState\.activityDetails\.completionAmount /],
      [tree({}, { suspended: 'yes' }), /^initialRegistrationState\.activityDetails\.suspended /],
      [tree({}, { timeTracked: 'garbage' }), /^initialRegistrationState\.activityDetails\.timeTracked must be a time span/],
      [tree({ timeTracked: 'PT1M' }), /children\.0\.timeTracked must be a time span/],
      [tree({ activityCompletion: 'DONE' }), /children\.0\.activityCompletion must be one of the following values: UNKNOWN, COMPLETED, INCOMPLETE/],
      [tree({ score: { scaled: 2 } }), /children\.0\.score\.scaled must not be greater than 1/],
      [tree({ completionAmount: { scaled: '1' } }), /children\.0\.completionAmount\.scaled must be a number/],
      [tree({ objectives: [{ id: 'o', objectiveSuccess: 'MAYBE' }] }), /children\.0\.objectives\.0\.objectiveSuccess must be one of/],
      [tree({ objectives: [5] }), /children\.0\.objectives must be an array of objects/],
      [tree({ staticProperties: { scaledPassingScore: '0.8' } }), /children\.0\.staticProperties\.scaledPassingScore must be a number/],
      [tree({ runtime: { scoreRaw: 90 } }), /children\.0\.runtime\.scoreRaw must be a string/],
      [tree({ runtime: { runtimeSuccessStatus: 'passed' } }), /children\.0\.runtime\.runtimeSuccessStatus must be one of/],
      [tree({ runtime: { learnerPreference: { audioLevel: 'loud' } } }), /children\.0\.runtime\.learnerPreference\.audioLevel must be a number/],
      [tree({ runtime: { learnerComments: [{ value: 1 }] } }), /children\.0\.runtime\.learnerComments\.0\.value must be a string/],
      [tree({ runtime: { runtimeInteractions: [{ id: 'q1', result: 1 }] } }), /children\.0\.runtime\.runtimeInteractions must be records of strings or string lists \(not so at 0\.result\)/],
      [tree({ runtime: { runtimeObjectives: [{ id: 'o', runtimeObjectiveSuccessStatus: 'X' }] } }), /children\.0\.runtime\.runtimeObjectives must have runtimeObjectiveSuccessStatus one of the following values: UNKNOWN, PASSED, FAILED \(not so at 0\.runtimeObjectiveSuccessStatus\)/],
      [tree({ runtime: { runtimeObjectives: 'x' } }), /children\.0\.runtime\.runtimeObjectives must be an array/],
      [tree({ children: [{ id: 'deeper', suspended: 1 }] }), /children\.0\.children\.0\.suspended /],
      [tree({ bogus: 1 }), /children\.0\.bogus: property bogus should not exist/],
      [{ activityDetails: { children: [5] } }, /^initialRegistrationState\.activityDetails\.children must be an array of objects/],
      [{ activityDetails: { children: {} } }, /^initialRegistrationState\.activityDetails\.children /],
      [{ activityDetails: 'x' }, /^initialRegistrationState\.activityDetails /],
      [{ globalObjectives: [{ id: 5 }] }, /^initialRegistrationState\.globalObjectives\.0\.id must be a string/],
      [{ globalObjectives: { id: 'g' } }, /^initialRegistrationState\.globalObjectives /],
      [{ registrationSuccess: 'DONE' }, /^initialRegistrationState\.registrationSuccess must be one of/],
      [{ registrationCompletionAmount: 'x' }, /^initialRegistrationState\.registrationCompletionAmount /],
      [{ registrationCompletionAmount: 1.5 }, /^initialRegistrationState\.registrationCompletionAmount must not be greater than 1/],
      [{ score: { scaled: 'x' } }, /^initialRegistrationState\.score\.scaled /],
      [{ totalSecondsTracked: -1 }, /^initialRegistrationState\.totalSecondsTracked /],
      [{ firstAccessDate: 'yesterday' }, /^initialRegistrationState\.firstAccessDate /],
      [{ suspendedActivityId: 1 }, /^initialRegistrationState\.suspendedActivityId must be a string/],
      [{ learner: { id: 5 } }, /^initialRegistrationState\.learner\.id must be a string/],
      [{ tags: 'x' }, /^initialRegistrationState\.tags /],
      [{ sharedData: [{ id: 'k', value: 1 }] }, /^initialRegistrationState\.sharedData\.0\.value must be a string/],
      [{ instance: 'x' }, /^initialRegistrationState\.instance /],
      [{ unknownField: 1 }, /^initialRegistrationState\.unknownField: property unknownField should not exist/],
      ['x', /^initialRegistrationState /],
    ];
    for (const [state, pattern] of refused) {
      const r = await withState('refused', state);
      expect({ state, status: r.status }).toEqual({ state, status: 400 });
      expect({ state, message: r.body.message }).toEqual({ state, message: expect.stringMatching(pattern) });
    }
    expect((await reg('refused', '', { method: 'HEAD' })).status).toBe(404);
  });

  it('accepts a whole valid state, shows it, launches it, and takes a GET’s answer back as a state', async () => {
    const state = {
      id: 'elsewhere',
      instance: 3,
      xapiRegistrationId: 'not checked',
      updated: '2024-01-01T00:00:00.000Z',
      createdDate: '2024-01-01T00:00:00Z',
      registrationCompletion: 'INCOMPLETE',
      registrationCompletionAmount: 0.5,
      registrationSuccess: 'UNKNOWN',
      score: { scaled: 0.25 },
      totalSecondsTracked: 62.5,
      firstAccessDate: '2024-01-02T03:04:05.000Z',
      lastAccessDate: '2024-01-02T03:05:00.000Z',
      course: { id: 'c1', title: 'Golf', version: 1 },
      learner: { id: 'someone', firstName: 'A' },
      tags: ['t'],
      globalObjectives: [{ id: 'g1', primary: false, score: { scaled: 0.5 }, scoreRaw: 5, objectiveCompletion: 'INCOMPLETE', objectiveSuccess: 'UNKNOWN' }],
      sharedData: [{ id: 'k', value: 'v' }],
      suspendedActivityId: null,
      activityDetails: {
        id: 'golf_sample_default_org',
        activityCompletion: 'INCOMPLETE',
        timeTracked: '0000:01:02.50',
        children: [
          {
            id: 'item_1',
            title: 'Golf Explained',
            attempts: 2,
            activityCompletion: 'INCOMPLETE',
            activitySuccess: 'UNKNOWN',
            score: { scaled: 0.25 },
            timeTracked: '0000:01:02.50',
            completionAmount: { scaled: 0.5 },
            suspended: false,
            children: [],
            objectives: [{ id: 'o1', objectiveSuccess: 'PASSED', firstSuccessTimeStamp: '2024-01-02T03:04:05Z' }],
            staticProperties: { scaledPassingScore: 0.8, scaledPassingScoreUsed: true, launchData: '' },
            runtime: {
              completionStatus: 'incomplete',
              location: 'page-3',
              scoreRaw: '25',
              suspendData: 'abc',
              runtimeSuccessStatus: 'UNKNOWN',
              learnerPreference: { audioLevel: 1, language: 'en', deliverySpeed: 1, audioCaptioning: 0 },
              learnerComments: [{ value: 'note', location: 'p1', dateTime: '2024-01-02T03:04:05Z' }],
              // As the player stores them: the data model's own names, lists of strings where the schema has them.
              runtimeInteractions: [{ id: 'q1', type: 'choice', learner_response: 'a', correctResponses: ['a', 'b'] }],
              runtimeObjectives: [{ id: 'o1', 'score.scaled': '0.5', runtimeObjectiveSuccessStatus: 'PASSED', runtimeObjectiveCompletionStatus: 'NOT_ATTEMPTED' }],
              timeTracked: null,
            },
          },
        ],
      },
    };
    expect((await withState('valid', state)).status).toBe(204);
    const full = '?includeChildResults=true&includeRuntime=true&includeInteractionsAndObjectives=true';
    const shown = (await reg('valid', full)).body;
    expect(shown).toMatchObject({
      id: 'valid',
      instance: 0,
      registrationCompletion: 'INCOMPLETE',
      registrationCompletionAmount: 0.5,
      score: { scaled: 0.25 },
      totalSecondsTracked: 62.5,
      learner: { id: 'learner-1' },
      globalObjectives: [{ id: 'g1', scoreRaw: 5, objectiveCompletion: 'INCOMPLETE' }],
      activityDetails: {
        timeTracked: '0000:01:02.50',
        children: [
          {
            id: 'item_1',
            attempts: 2,
            timeTracked: '0000:01:02.50',
            completionAmount: { scaled: 0.5 },
            objectives: [{ id: 'o1', objectiveSuccess: 'PASSED' }],
            runtime: {
              location: 'page-3',
              scoreRaw: '25',
              // Left null: the fresh tree's value stays.
              timeTracked: '0000:00:00',
              // Reported under the schema's names (RuntimeInteractionSchema, RuntimeObjectiveSchema).
              runtimeInteractions: [{ id: 'q1', type: 'Choice', learnerResponse: 'a', correctResponses: ['a', 'b'], objectives: [] }],
              runtimeObjectives: [{ id: 'o1', scoreScaled: '0.5', runtimeObjectiveSuccessStatus: 'PASSED', runtimeObjectiveCompletionStatus: 'NOT_ATTEMPTED' }],
            },
          },
        ],
      },
    });
    expect(shown.suspendedActivityId).toBeUndefined();

    const { html } = await launch('valid');
    expect(html.length).toBeGreaterThan(0);
    expect((await reg('valid')).body.activityDetails.attempts).toBeGreaterThanOrEqual(0);

    // What GET answers (the player's tree included) is a valid state for another registration.
    const again = (await reg('valid', full)).body;
    expect((await withState('copy', again)).status).toBe(204);
    expect((await reg('copy', full)).body.activityDetails.children[0]).toMatchObject({ attempts: again.activityDetails.children[0].attempts, timeTracked: '0000:01:02.50' });
  });

  it('launches a registration whose stored tree holds a time that is not a string (stored before the check)', async () => {
    expect((await withState('legacy', tree({ attempts: 1 }))).status).toBe(204);
    const instances = s.app.get(DataSource).getRepository(RegistrationInstanceEntity);
    const key = { appId: s.firstStart.application.appId, registrationId: 'legacy', instance: 0 };
    const { activityDetails } = await instances.findOneByOrFail(key);
    const broken = { ...activityDetails!, timeTracked: 5, children: activityDetails!.children.map((c) => ({ ...c, timeTracked: { h: 1 } })) };
    await instances.update(key, { activityDetails: broken as unknown as ActivityResult });
    const { html } = await launch('legacy');
    expect(html.length).toBeGreaterThan(0);
  });
});
