import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { fixture, importCourse } from '../support/courses';
import { Clients, createClients, errorBody, failure, invoke, op, sc } from '../support/official-client';
import { basic, startTestServer, TestServer } from '../support/test-server';

/**
 * Compatibility: every registration operation LCDS implements, driven through the official SCORM Cloud API V2
 * JavaScript client (v3): its request building (HEAD, DELETE with a body, csv tags, booleans in the query) and its
 * model deserialisation (dates become Date objects; enums are the exact wire strings).
 */
describe('official SCORM Cloud JavaScript client (v3): registrations', () => {
  let s: TestServer;
  let clients: Clients;
  let api: any;
  let receiver: Server;
  let receiverUrl: string;
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];

  const learner = () => Object.assign(new sc.LearnerSchema(), { id: 'client-learner', firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com' });
  const settings = (...pairs: Array<[string, string]>) =>
    Object.assign(new sc.SettingsPostSchema(), { settings: pairs.map(([settingId, value]) => Object.assign(new sc.SettingsIndividualSchema(), { settingId, value })) });
  const tagList = (...tags: string[]) => Object.assign(new sc.TagListSchema(), { tags });
  const itemOf = (list: any, id: string) => list.settingItems.find((i: any) => i.id === id);

  beforeAll(async () => {
    s = await startTestServer({ LCDS_OUTBOUND_ALLOW_PRIVATE: 'true' });
    const auth = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, auth, 'client-golf', fixture('scorm2004-3rd-golf-runtime-basic.zip'));
    clients = createClients(s.api, { normal: [s.firstStart.application.appId, s.firstStart.application.secretKey] });
    api = new sc.RegistrationApi(clients.apiClient);
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/postback`;
  });
  afterAll(async () => {
    receiver?.close();
    await s?.close();
  });

  it('CreateRegistration, GetRegistration (HEAD), GetRegistrationProgress, GetRegistrations', async () => {
    const body = Object.assign(new sc.CreateRegistrationSchema(), {
      courseId: 'client-golf',
      registrationId: 'client-reg',
      learner: learner(),
      registrationTags: ['client'],
      postBack: Object.assign(new sc.PostBackSchema(), { url: 'https://lms.example.com/pb', authType: sc.PostBackSchema.AuthTypeEnum.FORM, resultsFormat: sc.PostBackSchema.ResultsFormatEnum.COURSE }),
      initialSettings: settings(['PlayerLaunchType', 'NEW_WINDOW']),
    });
    const created = await invoke(api, 'createRegistration', body, { courseVersion: 1 });
    expect(created.response.status).toBe(204);
    expect((await invoke(api, 'getRegistration', 'client-reg')).response.status).toBe(200);
    const missing = await failure(api, 'getRegistration', 'nope');
    expect(missing.status).toBe(404);

    const progress = await op(api, 'getRegistrationProgress', 'client-reg', { includeChildResults: true, includeRuntime: true, includeInteractionsAndObjectives: true });
    expect(progress).toBeInstanceOf(sc.RegistrationSchema);
    expect(progress).toMatchObject({ id: 'client-reg', instance: 0, registrationCompletion: 'UNKNOWN', registrationSuccess: 'UNKNOWN', tags: ['client'] });
    expect(progress.createdDate).toBeInstanceOf(Date);
    expect(progress.updated).toBeInstanceOf(Date);
    expect(progress.course).toMatchObject({ id: 'client-golf', version: 1 });
    expect(progress.learner).toMatchObject({ id: 'client-learner', firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com' });
    expect(progress.activityDetails).toBeInstanceOf(sc.ActivityResultSchema);
    expect(progress.activityDetails.children.length).toBeGreaterThan(0);

    const dup = await failure(api, 'createRegistration', body, {});
    expect(dup.status).toBe(400);
    expect(errorBody(dup).message).toMatch(/already exists/);

    for (let i = 0; i < 11; i++) {
      await op(api, 'createRegistration', Object.assign(new sc.CreateRegistrationSchema(), { courseId: 'client-golf', registrationId: `page-${i}`, learner: learner() }), {});
    }
    const first = await invoke(api, 'getRegistrations', { courseId: 'client-golf', includeTotalCount: true, orderBy: 'created_asc' });
    expect(first.data).toBeInstanceOf(sc.RegistrationListSchema);
    expect(first.data.registrations).toHaveLength(10);
    expect(first.response.headers['x-total-count']).toBe('12');
    expect(first.data.registrations[0].id).toBe('client-reg');
    const second = await op(api, 'getRegistrations', { more: first.data.more });
    expect(second.registrations.map((r: any) => r.id)).toEqual(['page-9', 'page-10']);
    const tagged = await op(api, 'getRegistrations', { tags: ['client', 'other'], learnerId: 'client-learner', includeChildResults: true });
    expect(tagged.registrations.map((r: any) => r.id)).toEqual(['client-reg']);
    expect(tagged.registrations[0].activityDetails.children.length).toBeGreaterThan(0);
  });

  it('instances: CreateNewRegistrationInstance, GetRegistrationInstances, GetRegistrationInstanceProgress, DeleteRegistrationInstance', async () => {
    expect((await invoke(api, 'createNewRegistrationInstance', 'client-reg')).response.status).toBe(204);
    const list = await op(api, 'getRegistrationInstances', 'client-reg', { includeChildResults: false });
    expect(list.registrations.map((r: any) => r.instance)).toEqual([0, 1]);
    const one = await op(api, 'getRegistrationInstanceProgress', 'client-reg', 1, {});
    expect(one).toMatchObject({ id: 'client-reg', instance: 1 });
    expect((await invoke(api, 'deleteRegistrationInstance', 'client-reg', 1)).response.status).toBe(204);
    expect((await failure(api, 'getRegistrationInstanceProgress', 'client-reg', 1, {})).status).toBe(404);
  });

  it('configuration at registration and instance level', async () => {
    const reg = await op(api, 'getRegistrationConfiguration', 'client-reg', { includeMetadata: true });
    expect(reg).toBeInstanceOf(sc.SettingListSchema);
    expect(itemOf(reg, 'PlayerLaunchType')).toMatchObject({ effectiveValue: 'NEW_WINDOW', effectiveValueSource: sc.SettingItem.EffectiveValueSourceEnum.registration });
    expect(itemOf(reg, 'PlayerLaunchType').metadata).toBeInstanceOf(sc.SettingMetadata);
    await op(api, 'setRegistrationConfiguration', 'client-reg', settings(['PlayerLaunchType', 'FRAMESET']));
    expect(itemOf(await op(api, 'getRegistrationConfiguration', 'client-reg', {}), 'PlayerLaunchType').effectiveValue).toBe('FRAMESET');
    await op(api, 'setRegistrationInstanceConfiguration', 'client-reg', 0, settings(['PlayerLaunchType', 'NEW_WINDOW']));
    expect(itemOf(await op(api, 'getRegistrationInstanceConfiguration', 'client-reg', 0, {}), 'PlayerLaunchType').explicitValue).toBe('NEW_WINDOW');
    await op(api, 'deleteRegistrationInstanceConfigurationSetting', 'client-reg', 0, 'PlayerLaunchType');
    expect(itemOf(await op(api, 'getRegistrationInstanceConfiguration', 'client-reg', 0, {}), 'PlayerLaunchType').effectiveValue).toBe('FRAMESET');
    await op(api, 'deleteRegistrationConfigurationSetting', 'client-reg', 'PlayerLaunchType');
    expect(itemOf(await op(api, 'getRegistrationConfiguration', 'client-reg', {}), 'PlayerLaunchType').effectiveValueSource).toBe('default');
  });

  it('tags: GetRegistrationTags, PutRegistrationTags, DeleteRegistrationTags, PutRegistrationTagsBatch', async () => {
    expect((await op(api, 'getRegistrationTags', 'client-reg')).tags).toEqual(['client']);
    await op(api, 'putRegistrationTags', 'client-reg', tagList('x', 'y'));
    await op(api, 'deleteRegistrationTags', 'client-reg', tagList('x'));
    await op(api, 'putRegistrationTagsBatch', Object.assign(new sc.BatchTagsSchema(), { ids: ['client-reg', 'page-0'], tags: ['z'] }));
    expect((await op(api, 'getRegistrationTags', 'client-reg')).tags).toEqual(['y', 'z']);
    expect((await op(api, 'getRegistrationTags', 'page-0')).tags).toEqual(['z']);
  });

  it('launch history, launch link validation, postback test', async () => {
    const history = await op(api, 'getRegistrationLaunchHistory', 'client-reg', { includeHistoryLog: true });
    expect(history).toBeInstanceOf(sc.LaunchHistoryListSchema);
    expect(history.launchHistory).toEqual([]);
    expect((await op(api, 'getRegistrationInstanceLaunchHistory', 'client-reg', 0, {})).launchHistory).toEqual([]);

    const badLink = await failure(api, 'buildRegistrationLaunchLink', 'client-reg', Object.assign(new sc.LaunchLinkRequestSchema(), { redirectOnExitUrl: 'https://x.example.com/', expiry: 5 }));
    expect(badLink.status).toBe(400);
    expect(errorBody(badLink).message).toMatch(/expiry/);
    const link = await op(api, 'buildRegistrationLaunchLink', 'client-reg', Object.assign(new sc.LaunchLinkRequestSchema(), { redirectOnExitUrl: 'closer' }));
    expect(link.launchLink).toMatch(/\/player\/launch\//);
    expect((await failure(api, 'buildRegistrationLaunchLink', 'nope', Object.assign(new sc.LaunchLinkRequestSchema(), { redirectOnExitUrl: 'closer' }))).status).toBe(404);

    received.length = 0;
    const pb = Object.assign(new sc.PostBackSchema(), { url: receiverUrl, authType: sc.PostBackSchema.AuthTypeEnum.HTTPBASIC, userName: 'u', password: 'p', resultsFormat: sc.PostBackSchema.ResultsFormatEnum.FULL });
    expect((await invoke(api, 'testRegistrationPostback', pb)).response.status).toBe(204);
    expect(received[0].headers.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    expect(JSON.parse(received[0].body).activityDetails.children[0].runtime).toBeDefined();
  });

  it('DeleteRegistrationGlobalData, DeleteRegistrationProgress, DeleteRegistration', async () => {
    expect((await invoke(api, 'deleteRegistrationGlobalData', 'client-reg')).response.status).toBe(204);
    await op(api, 'createNewRegistrationInstance', 'client-reg');
    expect((await invoke(api, 'deleteRegistrationProgress', 'client-reg')).response.status).toBe(204);
    const after = await op(api, 'getRegistrationInstances', 'client-reg', {});
    expect(after.registrations.map((r: any) => r.instance)).toEqual([0]);
    expect((await invoke(api, 'deleteRegistration', 'client-reg')).response.status).toBe(204);
    expect((await failure(api, 'getRegistration', 'client-reg')).status).toBe(404);
    expect((await failure(api, 'deleteRegistration', 'client-reg')).status).toBe(404);
  });
});
