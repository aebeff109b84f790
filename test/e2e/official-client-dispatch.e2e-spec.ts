import { fixture, importCourse } from '../support/courses';
import { Clients, createClients, errorBody, failure, invoke, op, sc } from '../support/official-client';
import { unzip } from '../support/dispatch-lms';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

/**
 * Compatibility: the destination and dispatch operations of the Dispatch service, driven through the official SCORM
 * Cloud API V2 JavaScript client (v3); scopes, another application's ids, bad input.
 */
describe('official SCORM Cloud JavaScript client (v3): dispatch', () => {
  let s: TestServer;
  let clients: Clients;
  let api: any;
  let app: string;
  let otherApp: string;

  const tagList = (...tags: string[]) => Object.assign(new sc.TagListSchema(), { tags });
  const enabled = (value: boolean) => Object.assign(new sc.EnabledSchema(), { enabled: value });
  const destination = (id: string, data: Record<string, unknown>) => Object.assign(new sc.DestinationIdSchema(), { id, data: Object.assign(new sc.DestinationSchema(), data) });
  const dispatch = (id: string, data: Record<string, unknown>) => Object.assign(new sc.CreateDispatchIdSchema(), { id, data: Object.assign(new sc.CreateDispatchSchema(), data) });
  const token = async (scope: string) =>
    (await call(`${s.api}/oauth/authenticate/application/token`, { method: 'POST', auth: app, body: new URLSearchParams({ scope }), headers: { 'content-type': 'application/x-www-form-urlencoded' } })).body.access_token as string;

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'golf', fixture('scorm12-golf-runtime-basic.zip'));
    await importCourse(s.api, app, 'golf-2', fixture('scorm12-golf-runtime-basic.zip'));
    clients = createClients(s.api, { normal: [s.firstStart.application.appId, s.firstStart.application.secretKey] });
    api = new sc.DispatchApi(clients.apiClient);
    const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    const child = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'Other' } });
    const cred = await call(`${s.api}/appManagement/${child.body.id}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'k', active: true } });
    otherApp = basic(child.body.id, cred.body.credential);
  });
  afterAll(async () => s?.close());

  it('CreateDestinations, GetDestination, SetDestination, GetDestinations (filters, paging), destination tags', async () => {
    await op(
      api,
      'createDestinations',
      Object.assign(new sc.DestinationListSchema(), {
        destinations: [
          destination('acme-lms', { name: 'Acme LMS', tags: ['east'], email: 'lms@acme.test', notes: 'main' }),
          destination('beta-lms', { name: 'Beta LMS', tags: ['west'] }),
        ],
      }),
    );
    const acme = await op(api, 'getDestination', 'acme-lms');
    expect(acme).toBeInstanceOf(sc.DestinationSchema);
    expect(acme).toMatchObject({ name: 'Acme LMS', tags: ['east'], email: 'lms@acme.test', notes: 'main' });
    expect(acme.created).toBeInstanceOf(Date);
    // An id already in use: 409, nothing created.
    const dup = await failure(api, 'createDestinations', Object.assign(new sc.DestinationListSchema(), { destinations: [destination('gamma-lms', { name: 'G' }), destination('acme-lms', { name: 'again' })] }));
    expect(dup.status).toBe(409);
    expect((await failure(api, 'getDestination', 'gamma-lms')).status).toBe(404);

    await op(api, 'setDestination', 'beta-lms', Object.assign(new sc.DestinationSchema(), { name: 'Beta LMS 2', notes: 'renamed' }));
    expect(await op(api, 'getDestination', 'beta-lms')).toMatchObject({ name: 'Beta LMS 2', notes: 'renamed', tags: ['west'] });
    // SetDestination of a new id creates it.
    await op(api, 'setDestination', 'delta-lms', Object.assign(new sc.DestinationSchema(), { name: 'Delta', tags: ['east'] }));

    const list = await invoke(api, 'getDestinations', { tags: ['east'], includeTotalCount: true });
    expect(list.data).toBeInstanceOf(sc.DestinationListSchema);
    expect(list.response.headers['x-total-count']).toBe('2');
    expect(list.data.destinations.map((d: any) => d.id).sort()).toEqual(['acme-lms', 'delta-lms']);
    expect((await op(api, 'getDestinations', { filter: 'beta' })).destinations.map((d: any) => d.id)).toEqual(['beta-lms']);
    const counted = await call(`${s.api}/dispatch/destinations?includeDispatchCount=true&filter=acme`, { auth: app });
    expect(counted.body.destinations[0]).toMatchObject({ id: 'acme-lms', data: { dispatchCount: 0 } });

    await op(api, 'putDestinationTags', 'acme-lms', tagList('east', 'north'));
    await op(api, 'putDestinationTagsBatch', Object.assign(new sc.BatchTagsSchema(), { ids: ['acme-lms', 'beta-lms'], tags: ['all'] }));
    await op(api, 'deleteDestinationTags', 'acme-lms', tagList('north'));
    expect((await op(api, 'getDestinationTags', 'acme-lms')).tags).toEqual(['all', 'east']);
    expect((await op(api, 'getDestinationTags', 'beta-lms')).tags).toEqual(['all', 'west']);
    expect((await failure(api, 'putDestinationTagsBatch', Object.assign(new sc.BatchTagsSchema(), { ids: ['acme-lms', 'nope'], tags: ['x'] }))).status).toBe(404);
  });

  it('CreateDispatches, GetDispatch, UpdateDispatch, GetDispatches with filters and more, GetDestinationDispatches', async () => {
    const expiry = new Date(Date.now() + 86_400_000);
    await op(
      api,
      'createDispatches',
      Object.assign(new sc.CreateDispatchListSchema(), {
        dispatches: [
          dispatch('d-acme-golf', { destinationId: 'acme-lms', courseId: 'golf', registrationCap: 5, expirationDate: expiry, tags: ['spring'], email: 'a@acme.test', notes: 'n' }),
          dispatch('d-beta-golf', { destinationId: 'beta-lms', courseId: 'golf', allowNewRegistrations: false, instanced: false }),
          dispatch('d-acme-golf2', { destinationId: 'acme-lms', courseId: 'golf-2', enabled: false }),
        ],
      }),
    );
    const got = await op(api, 'getDispatch', 'd-acme-golf');
    expect(got).toBeInstanceOf(sc.DispatchSchema);
    expect(got).toMatchObject({
      destinationId: 'acme-lms',
      destinationName: 'Acme LMS',
      courseId: 'golf',
      courseTitle: 'Golf Explained - Run-time Basic Calls',
      allowNewRegistrations: true,
      enabled: true,
      instanced: true,
      registrationCap: 5,
      registrationCount: 0,
      tags: ['spring'],
      email: 'a@acme.test',
      notes: 'n',
    });
    expect(got.expirationDate.toISOString()).toBe(expiry.toISOString());
    expect(await op(api, 'getDispatch', 'd-beta-golf')).toMatchObject({ allowNewRegistrations: false, instanced: false, enabled: true, registrationCap: 0 });

    // Unknown course or destination: 400 naming it; nothing created.
    const bad = await failure(api, 'createDispatches', Object.assign(new sc.CreateDispatchListSchema(), { dispatches: [dispatch('d-x', { destinationId: 'acme-lms', courseId: 'no-such' })] }));
    expect(bad.status).toBe(400);
    expect(errorBody(bad).message).toMatch(/course 'no-such' not found/);
    const bad2 = await call(`${s.api}/dispatch/dispatches`, { method: 'POST', auth: app, json: { dispatches: [{ id: 'd-y', data: { courseId: 'golf' } }] } });
    expect(bad2.status).toBe(400);
    expect(bad2.body.message).toMatch(/destinationId/);
    expect((await failure(api, 'createDispatches', Object.assign(new sc.CreateDispatchListSchema(), { dispatches: [dispatch('d-acme-golf', { destinationId: 'acme-lms', courseId: 'golf' })] }))).status).toBe(409);

    await op(api, 'updateDispatch', 'd-acme-golf', Object.assign(new sc.UpdateDispatchSchema(), { registrationCap: 7, notes: 'updated' }));
    expect(await op(api, 'getDispatch', 'd-acme-golf')).toMatchObject({ registrationCap: 7, notes: 'updated', email: 'a@acme.test' });

    const all = await op(api, 'getDispatches', {});
    expect(all).toBeInstanceOf(sc.DispatchListSchema);
    expect(all.dispatches.map((d: any) => d.id).sort()).toEqual(['d-acme-golf', 'd-acme-golf2', 'd-beta-golf']);
    expect(all.dispatches[0].data).toBeInstanceOf(sc.DispatchSchema);
    expect((await op(api, 'getDispatches', { courseId: 'golf-2' })).dispatches.map((d: any) => d.id)).toEqual(['d-acme-golf2']);
    expect((await op(api, 'getDispatches', { tags: ['spring'] })).dispatches.map((d: any) => d.id)).toEqual(['d-acme-golf']);
    expect((await op(api, 'getDispatches', { filter: 'beta' })).dispatches.map((d: any) => d.id)).toEqual(['d-beta-golf']);
    expect((await op(api, 'getDispatches', { filter: 'golf-2', filterBy: 'course_id' })).dispatches.map((d: any) => d.id)).toEqual(['d-acme-golf2']);
    const ordered = await op(api, 'getDispatches', { orderBy: 'created_desc' });
    expect(ordered.dispatches.map((d: any) => d.id)).toHaveLength(3);
    const mine = await op(api, 'getDestinationDispatches', 'acme-lms', {});
    expect(mine.dispatches.map((d: any) => d.id).sort()).toEqual(['d-acme-golf', 'd-acme-golf2']);
    expect((await op(api, 'getDestinationDispatches', 'acme-lms', { courseId: 'golf' })).dispatches.map((d: any) => d.id)).toEqual(['d-acme-golf']);
    expect((await op(api, 'getDestinations', { courseId: 'golf-2' })).destinations.map((d: any) => d.id)).toEqual(['acme-lms']);
    expect((await call(`${s.api}/dispatch/destinations/acme-lms?includeDispatchCount=true`, { auth: app })).body.dispatchCount).toBe(2);

    // Paging: 100 a page, `more` carries the filters.
    const many = Array.from({ length: 101 }, (_, i) => dispatch(`bulk-${String(i).padStart(3, '0')}`, { destinationId: 'delta-lms', courseId: 'golf-2', tags: ['bulk'] }));
    await op(api, 'createDispatches', Object.assign(new sc.CreateDispatchListSchema(), { dispatches: many }));
    const first = await invoke(api, 'getDispatches', { tags: ['bulk'], includeTotalCount: true });
    expect(first.response.headers['x-total-count']).toBe('101');
    expect(first.data.dispatches).toHaveLength(100);
    expect(typeof first.data.more).toBe('string');
    const second = await op(api, 'getDispatches', { more: first.data.more });
    expect(second.dispatches).toHaveLength(1);
    expect(second.more).toBeUndefined();
    const seen = new Set([...first.data.dispatches, ...second.dispatches].map((d: any) => d.id));
    expect(seen.size).toBe(101);
    expect((await call(`${s.api}/dispatch/dispatches?more=garbage`, { auth: app })).status).toBe(400);
  });

  it('UpdateDispatches and DeleteDispatches act on a selection, and refuse none', async () => {
    const none = await failure(api, 'deleteDispatches', {});
    expect(none.status).toBe(400);
    expect(errorBody(none).message).toMatch(/courseId, since, until, tags or filter/);
    await op(api, 'updateDispatches', Object.assign(new sc.UpdateDispatchSchema(), { enabled: false, registrationCap: 3 }), { tags: ['bulk'] });
    const bulk = await op(api, 'getDispatches', { tags: ['bulk'], filter: 'bulk-05' });
    expect(bulk.dispatches.map((d: any) => d.data)).toEqual(Array.from({ length: 10 }, () => expect.objectContaining({ enabled: false, registrationCap: 3 })));
    expect(await op(api, 'getDispatch', 'd-acme-golf')).toMatchObject({ enabled: true, registrationCap: 7 });
    await op(api, 'deleteDispatches', { tags: ['bulk'], filter: 'bulk-05' });
    expect((await invoke(api, 'getDispatches', { tags: ['bulk'], includeTotalCount: true })).response.headers['x-total-count']).toBe('91');
    expect((await failure(api, 'getDispatch', 'bulk-050')).status).toBe(404);
    await op(api, 'deleteDispatches', { tags: ['bulk'] });
    expect((await op(api, 'getDispatches', { tags: ['bulk'] })).dispatches).toEqual([]);
    expect((await call(`${s.api}/dispatch/dispatches/bulk-000/tags`, { auth: app })).status).toBe(404);
  });

  it('enabled, hashUserInfo, registration instancing, registration counts and postback, per dispatch and per destination', async () => {
    expect(await op(api, 'getDispatchEnabled', 'd-acme-golf')).toMatchObject({ enabled: true });
    await op(api, 'setDispatchEnabled', 'd-acme-golf', enabled(false));
    expect((await op(api, 'getDispatchEnabled', 'd-acme-golf')).enabled).toBe(false);
    await op(api, 'setDestinationDispatchEnabled', 'acme-lms', enabled(true));
    expect((await op(api, 'getDispatchEnabled', 'd-acme-golf')).enabled).toBe(true);
    expect((await op(api, 'getDispatchEnabled', 'd-acme-golf2')).enabled).toBe(true);

    expect(await op(api, 'getDispatchHashUserInfo', 'd-acme-golf')).toMatchObject({ enabled: false });
    await op(api, 'updateDispatchHashUserInfo', 'd-acme-golf', enabled(true));
    expect((await op(api, 'getDispatchHashUserInfo', 'd-acme-golf')).enabled).toBe(true);
    expect((await op(api, 'getDestinationHashUserInfo', 'beta-lms')).enabled).toBe(false);
    await op(api, 'updateDestinationHashUserInfo', 'beta-lms', enabled(true));
    expect((await op(api, 'getDestinationHashUserInfo', 'beta-lms')).enabled).toBe(true);
    expect((await op(api, 'getDispatchHashUserInfo', 'd-beta-golf')).enabled).toBe(true);
    await op(api, 'updateDestinationHashUserInfo', 'beta-lms', enabled(false));

    await op(api, 'enableRegistrationInstancing', 'beta-lms', enabled(true));
    expect((await op(api, 'getDispatch', 'd-beta-golf')).instanced).toBe(true);

    const count = await op(api, 'getDispatchRegistrationCount', 'd-acme-golf');
    expect(count).toBeInstanceOf(sc.DispatchRegistrationCountSchema);
    expect(count.registrationCount).toBe(0);
    expect(count.lastResetDate).toBeUndefined();
    await op(api, 'resetDispatchRegistrationCount', 'd-acme-golf');
    expect((await op(api, 'getDispatchRegistrationCount', 'd-acme-golf')).lastResetDate).toBeInstanceOf(Date);
    const destCount = await op(api, 'getDestinationDispatchRegistrationCount', 'acme-lms');
    expect(destCount).toBeInstanceOf(sc.IntegerResultSchema);
    expect(destCount.result).toBe(0);
    await op(api, 'resetDestinationDispatchRegistrationCount', 'acme-lms');

    await op(api, 'updateDispatch', 'd-acme-golf', Object.assign(new sc.UpdateDispatchSchema(), { postBack: Object.assign(new sc.PostBackSchema(), { url: 'https://lms.example/pb', authType: 'HTTPBASIC', userName: 'u', password: 'p', resultsFormat: 'COURSE' }) }));
    await op(api, 'deleteDispatchPostbackInfo', 'd-acme-golf');

    // Bad bodies: 400 with a message, never 500.
    for (const [path, method, json] of [
      ['dispatches/d-acme-golf/enabled', 'PUT', {}],
      ['dispatches/d-acme-golf/enabled', 'PUT', { enabled: 'yes' }],
      ['destinations/acme-lms/dispatches/enabled', 'POST', { enabled: 1 }],
      ['dispatches/d-acme-golf', 'PUT', { registrationCap: -1 }],
      ['dispatches/d-acme-golf', 'PUT', { expirationDate: 'soon' }],
      ['destinations', 'POST', { destinations: [{ id: '', data: {} }] }],
      ['destinations', 'POST', { destinations: 'x' }],
      ['dispatches', 'POST', { dispatches: [{ id: 'z', data: { destinationId: 'acme-lms', courseId: 'golf', tags: 'a' } }] }],
    ] as const) {
      const res = await call(`${s.api}/dispatch/${path}`, { method, auth: app, json });
      expect({ path, json, status: res.status, message: typeof res.body.message }).toEqual({ path, json, status: 400, message: 'string' });
    }
  });

  it('GetDispatchZip and GetDestinationDispatchZip through the client (SCORM, CMI5, XAPI, AICC); an unknown type is a 400', async () => {
    const zip = await op(api, 'getDispatchZip', 'd-acme-golf', { type: 'SCORM_2004_3RD' });
    expect(Buffer.isBuffer(zip)).toBe(true);
    const files = await unzip(zip);
    expect([...files.keys()].sort()).toEqual(['imsmanifest.xml', 'index.html']);
    expect(files.get('imsmanifest.xml')!.toString()).toContain('2004 3rd Edition');
    const all = await unzip(await op(api, 'getDestinationDispatchZip', 'acme-lms', {}));
    expect([...all.keys()].sort()).toEqual(['d-acme-golf.zip', 'd-acme-golf2.zip']);
    expect([...(await unzip(all.get('d-acme-golf.zip')!)).keys()].sort()).toEqual(['imsmanifest.xml', 'index.html']);
    const tagged = await unzip(await op(api, 'getDestinationDispatchZip', 'acme-lms', { tags: ['spring'] }));
    expect([...tagged.keys()]).toEqual(['d-acme-golf.zip']);
    const cmi5 = await unzip(await op(api, 'getDispatchZip', 'd-acme-golf', { type: 'CMI5' }));
    expect([...cmi5.keys()]).toEqual(['cmi5.xml']);
    expect(cmi5.get('cmi5.xml')!.toString()).toMatch(/<au id="[^"]+" moveOn="CompletedOrPassed" launchMethod="AnyWindow">/);
    const xapi = await unzip(await op(api, 'getDispatchZip', 'd-acme-golf', { type: 'XAPI' }));
    expect([...xapi.keys()].sort()).toEqual(['index.html', 'tincan.xml']);
    const xapiAll = await unzip(await op(api, 'getDestinationDispatchZip', 'acme-lms', { type: 'XAPI' }));
    expect([...(await unzip(xapiAll.get('d-acme-golf.zip')!)).keys()].sort()).toEqual(['index.html', 'tincan.xml']);
    const aicc = await unzip(await op(api, 'getDispatchZip', 'd-acme-golf', { type: 'AICC' }));
    expect([...aicc.keys()].sort()).toEqual(['course.au', 'course.crs', 'course.cst', 'course.des']);
    const unknown = await failure(api, 'getDispatchZip', 'd-acme-golf', { type: 'SCORM_2004_4TH' });
    expect(unknown.status).toBe(400);
    expect(errorBody(unknown).message).toMatch(/type/);
    expect((await failure(api, 'getDispatchZip', 'd-acme-golf', { cssUrl: 'javascript:alert(1)' })).status).toBe(400);
    expect((await call(`${s.api}/dispatch/dispatches/d-acme-golf/zip`, { auth: otherApp })).status).toBe(404);
  });

  it('scopes: read:dispatch reads, write:dispatch writes, delete:dispatch deletes; read/write/delete do too', async () => {
    const read = await token('read:dispatch');
    const write = await token('write:dispatch');
    const del = await token('delete:dispatch');
    const other = await token('read:course');
    const url = `${s.api}/dispatch/dispatches/d-acme-golf`;
    expect((await call(url, { auth: `Bearer ${read}` })).status).toBe(200);
    expect((await call(url, { auth: `Bearer ${other}` })).status).toBe(403);
    expect((await call(url, { auth: `Bearer ${await token('read')}` })).status).toBe(200);
    expect((await call(url, { method: 'PUT', auth: `Bearer ${read}`, json: { notes: 'x' } })).status).toBe(403);
    expect((await call(url, { method: 'PUT', auth: `Bearer ${write}`, json: { notes: 'x' } })).status).toBe(204);
    expect((await call(url, { method: 'PUT', auth: `Bearer ${await token('write')}`, json: { notes: 'y' } })).status).toBe(204);
    expect((await call(`${url}/registrationCount`, { method: 'DELETE', auth: `Bearer ${write}` })).status).toBe(403);
    expect((await call(`${url}/registrationCount`, { method: 'DELETE', auth: `Bearer ${del}` })).status).toBe(204);
    expect((await call(`${s.api}/dispatch/destinations/delta-lms`, { method: 'DELETE', auth: `Bearer ${await token('delete')}` })).status).toBe(204);
    expect((await call(`${s.api}/dispatch/destinations/delta-lms`, { auth: app })).status).toBe(404);
  });

  it("another application's destinations and dispatches are 404", async () => {
    for (const path of [
      'destinations/acme-lms',
      'destinations/acme-lms/tags',
      'destinations/acme-lms/dispatches',
      'destinations/acme-lms/dispatches/hashUserInfo',
      'destinations/acme-lms/dispatches/registrationCount',
      'dispatches/d-acme-golf',
      'dispatches/d-acme-golf/enabled',
      'dispatches/d-acme-golf/hashUserInfo',
      'dispatches/d-acme-golf/registrationCount',
      'dispatches/d-acme-golf/tags',
    ]) {
      expect({ path, status: (await call(`${s.api}/dispatch/${path}`, { auth: otherApp })).status }).toEqual({ path, status: 404 });
    }
    expect((await call(`${s.api}/dispatch/dispatches/d-acme-golf/enabled`, { method: 'PUT', auth: otherApp, json: { enabled: false } })).status).toBe(404);
    expect((await call(`${s.api}/dispatch/destinations/acme-lms`, { method: 'DELETE', auth: otherApp })).status).toBe(404);
    expect((await call(`${s.api}/dispatch/dispatches`, { auth: otherApp })).body.dispatches).toEqual([]);
    expect((await call(`${s.api}/dispatch/destinations`, { auth: otherApp })).body.destinations).toEqual([]);
    // Another application's destination cannot be dispatched to.
    const res = await call(`${s.api}/dispatch/dispatches`, { method: 'POST', auth: otherApp, json: { dispatches: [{ id: 'x', data: { destinationId: 'acme-lms', courseId: 'golf' } }] } });
    expect(res.status).toBe(400);
    expect(await op(api, 'getDispatchEnabled', 'd-acme-golf')).toMatchObject({ enabled: true });
  });

  it('DeleteDispatch, DeleteDestinationDispatches, DeleteDestination; a deleted course takes its dispatches', async () => {
    await op(api, 'deleteDispatch', 'd-beta-golf');
    expect((await failure(api, 'getDispatch', 'd-beta-golf')).status).toBe(404);
    await op(api, 'deleteDestinationDispatches', 'acme-lms');
    expect((await op(api, 'getDestinationDispatches', 'acme-lms', {})).dispatches).toEqual([]);
    await op(api, 'createDispatches', Object.assign(new sc.CreateDispatchListSchema(), { dispatches: [dispatch('d-g2', { destinationId: 'beta-lms', courseId: 'golf-2' })] }));
    expect((await call(`${s.api}/courses/golf-2`, { method: 'DELETE', auth: app })).status).toBe(204);
    expect((await failure(api, 'getDispatch', 'd-g2')).status).toBe(404);
    await op(api, 'deleteDestination', 'beta-lms');
    expect((await failure(api, 'getDestination', 'beta-lms')).status).toBe(404);
    expect((await failure(api, 'deleteDestination', 'beta-lms')).status).toBe(404);
  });
});
