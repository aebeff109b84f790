import { fixture, importCourse } from '../support/courses';
import { Clients, createClients, errorBody, failure, invoke, op, sc } from '../support/official-client';
import { waitFor } from '../support/player';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { basic, call, startTestServer, TestServer } from '../support/test-server';
import { ApplicationAdminsService } from '../../src/modules/learners/application-admins.service';
import { DomainEvent, EventBus, InvitationChanged, InvitationCreated, LearnerErased } from '../../src/platform/events';

/**
 * Compatibility: the 16 invitation and 6 learner operations, driven through the official SCORM Cloud API V2
 * JavaScript client (v3), against a real SMTP server in this process.
 */
describe('official SCORM Cloud JavaScript client (v3): invitations and learners', () => {
  let s: TestServer;
  let smtp: SmtpSink;
  let clients: Clients;
  let inv: any;
  let learners: any;
  let app: string;
  let otherApp: string;
  let publicId: string;
  let privateId: string;
  const events: DomainEvent[] = [];

  const tagList = (...tags: string[]) => Object.assign(new sc.TagListSchema(), { tags });
  const status = (id: string) => op(inv, 'getPrivateInvitationJobStatus', id);

  beforeAll(async () => {
    smtp = await startSmtpSink();
    s = await startTestServer({ SMTP_URL: smtp.url, MAIL_FROM: 'Training <training@lcds.test>', LCDS_EMAIL_BACKOFF_MS: '50' });
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    await importCourse(s.api, app, 'inv-golf', fixture('scorm12-golf-runtime-basic.zip'));
    const bus = s.app.get(EventBus);
    for (const type of [InvitationCreated, InvitationChanged, LearnerErased]) bus.on(type as typeof InvitationCreated, (e) => void events.push(e));
    clients = createClients(s.api, { normal: [s.firstStart.application.appId, s.firstStart.application.secretKey] });
    inv = new sc.InvitationsApi(clients.apiClient);
    learners = new sc.LearnerApi(clients.apiClient);
    const mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
    const child = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name: 'Other' } });
    const cred = await call(`${s.api}/appManagement/${child.body.id}/credentials`, { method: 'POST', auth: mgmt, json: { name: 'k', active: true } });
    otherApp = basic(child.body.id, cred.body.credential);
  });
  afterAll(async () => {
    await s?.close();
    await smtp?.close();
  });

  it('CreatePublicInvitation, GetPublicInvitation, UpdatePublicInvitation, GetPublicInvitations', async () => {
    const created = await op(
      inv,
      'createPublicInvitation',
      Object.assign(new sc.CreatePublicInvitationSchema(), { courseId: 'inv-golf', creatingUserEmail: 'owner@example.com', registrationCap: 3, tags: ['spring'] }),
    );
    expect(created).toBeInstanceOf(sc.PublicInvitationSchema);
    expect(created).toMatchObject({ courseId: 'inv-golf', allowLaunch: true, allowNewRegistrations: true, registrationCap: 3 });
    expect(created.url).toMatch(new RegExp(`^${s.baseUrl}/invite/p/[A-Za-z0-9_-]+$`));
    expect(created.createDate).toBeInstanceOf(Date);
    publicId = created.id;

    const got = await op(inv, 'getPublicInvitation', publicId, { includeRegistrationCount: true });
    expect(got).toMatchObject({ id: publicId, registrationCount: 0, url: created.url });

    const expiry = new Date(Date.now() + 86_400_000);
    const updated = await op(
      inv,
      'updatePublicInvitation',
      publicId,
      Object.assign(new sc.PublicInvitationUpdateSchema(), { allowNewRegistrations: false, registrationCap: 5, expirationDate: expiry }),
    );
    expect(updated).toMatchObject({ id: publicId, allowNewRegistrations: false, registrationCap: 5, allowLaunch: true });
    expect(updated.expirationDate.toISOString()).toBe(expiry.toISOString());
    // A whole PublicInvitationSchema is accepted; only the updatable attributes count.
    const whole = await call(`${s.api}/invitations/public/${publicId}`, { method: 'PUT', auth: app, json: { ...JSON.parse(JSON.stringify(updated)), courseId: 'elsewhere', allowNewRegistrations: true } });
    expect(whole.status).toBe(200);
    expect(whole.body).toMatchObject({ courseId: 'inv-golf', allowNewRegistrations: true });

    expect(events.filter((e) => e instanceof InvitationCreated || e instanceof InvitationChanged).map((e) => ({ ...e }))).toEqual([
      expect.objectContaining({ invitationId: publicId, kind: 'public', courseId: 'inv-golf' }),
      expect.objectContaining({ invitationId: publicId, kind: 'public', changed: ['allowNewRegistrations', 'expirationDate', 'registrationCap'] }),
      expect.objectContaining({ invitationId: publicId, kind: 'public', changed: ['allowNewRegistrations'] }),
    ]);
    const list = await op(inv, 'getPublicInvitations', { courseId: 'inv-golf', tags: ['spring'] });
    expect(list).toBeInstanceOf(sc.PublicInvitationList);
    expect(list.invitations.map((i: any) => i.id)).toEqual([publicId]);
    expect((await op(inv, 'getPublicUserInvitations', publicId, {})).userInvitations).toEqual([]);
  });

  it('CreatePrivateInvitation answers at once; the job registers and e-mails each address; GetPrivateInvitationJobStatus', async () => {
    smtp.rejectRecipients.add('gone@example.com');
    const body = Object.assign(new sc.CreatePrivateInvitationSchema(), {
      courseId: 'inv-golf',
      creatingUserEmail: 'owner@example.com',
      duplicateRegistrationOption: 'CREATE_NEW',
      tags: ['autumn'],
      invitationEmail: Object.assign(new sc.InvitationEmailSchema(), {
        subject: 'Your golf course',
        body: 'Hello,\n\nplease take this course before Friday.',
        addresses: ['ada@example.com', 'Grace@Example.com', 'not an address', 'gone@example.com', 'grace@example.com'],
      }),
    });
    const summary = await op(inv, 'createPrivateInvitation', body);
    expect(summary).toBeInstanceOf(sc.InvitationSummarySchema);
    expect(summary).toMatchObject({ courseId: 'inv-golf', isPublic: false });
    privateId = summary.id;

    const done = await waitFor(() => status(privateId), (st) => st.status !== 'STARTED', 20_000);
    expect(done).toBeInstanceOf(sc.InvitationJobStatusSchema);
    expect(done).toMatchObject({ status: 'ERROR', total: 4, processed: 4 });
    expect(done.errors).toHaveLength(2);
    expect(done.errors.join('\n')).toMatch(/not an address: not a valid e-mail address/);
    expect(done.errors.join('\n')).toMatch(/gone@example.com: SMTP refused/);

    const mails = smtp.received.filter((m) => m.parsed.subject === 'Your golf course');
    expect(mails.map((m) => m.envelopeTo[0].toLowerCase()).sort()).toEqual(['ada@example.com', 'grace@example.com']);
    for (const m of mails) {
      expect(m.parsed.from?.value[0]).toMatchObject({ name: 'Training', address: 'training@lcds.test' });
      expect(m.parsed.messageId).toMatch(/^<[0-9a-f-]+@127\.0\.0\.1>$/);
      expect(m.parsed.date).toBeInstanceOf(Date);
      expect(m.raw).toMatch(/^List-Unsubscribe: <mailto:owner@example.com\?subject=unsubscribe>\r?$/m);
      expect(m.parsed.text).toContain('please take this course before Friday.');
      expect(m.parsed.text).toContain('Golf Explained');
      expect(m.parsed.html).toContain('/invite/u/');
    }
    const links = mails.map((m) => /\/invite\/u\/(\S+)/.exec(m.parsed.text ?? '')![1]);
    expect(new Set(links).size).toBe(2);

    const got = await op(inv, 'getPrivateInvitation', privateId, { includeRegistrationCount: true });
    expect(got).toBeInstanceOf(sc.PrivateInvitationSchema);
    expect(got).toMatchObject({ id: privateId, allowLaunch: true, registrationCount: 3 });
    expect(got.invitationEmail).toMatchObject({ subject: 'Your golf course' });
    expect(got.invitationEmail.addresses).toHaveLength(4);
  });

  it('GetPrivateUserInvitations with registrationReport, paging and filters; UpdatePrivateInvitation', async () => {
    const users = await invoke(inv, 'getPrivateUserInvitations', privateId, { includeRegistrationReport: true, includeTotalCount: true });
    expect(users.data).toBeInstanceOf(sc.UserInvitationList);
    expect(users.response.headers['x-total-count']).toBe('4');
    const ada = users.data.userInvitations.find((u: any) => u.email === 'ada@example.com');
    expect(ada).toMatchObject({ isStarted: false, registrationReport: { complete: 'UNKNOWN', success: 'UNKNOWN', totalSecondsTracked: 0 } });
    expect(ada.url).toMatch(/\/invite\/u\//);
    const reg = await call(`${s.api}/registrations/${ada.registrationId}`, { auth: app });
    expect(reg.body.learner).toMatchObject({ id: 'ada@example.com', email: 'ada@example.com' });
    const filtered = await op(inv, 'getPrivateUserInvitations', privateId, { filter: 'grace', filterBy: 'email' });
    expect(filtered.userInvitations.map((u: any) => u.email)).toEqual(['Grace@Example.com']);

    const updated = await op(
      inv,
      'updatePrivateInvitation',
      privateId,
      Object.assign(new sc.PrivateInvitationUpdateSchema(), { allowLaunch: false, invitationEmail: Object.assign(new sc.InvitationEmailSchema(), { subject: 'Renamed', addresses: [] }) }),
    );
    expect(updated).toMatchObject({ allowLaunch: false, invitationEmail: { subject: 'Renamed' } });
    expect(updated.invitationEmail.addresses).toHaveLength(4);
    // The e-mailed link now says the invitation is closed, and launches nothing.
    const closed = await fetch(ada.url, { redirect: 'manual' });
    expect(closed.status).toBe(403);
    expect(await closed.text()).toMatch(/invitation is closed/);
  });

  it('GetAllInvitations, GetPrivateInvitations: filters, order, paging', async () => {
    const all = await invoke(inv, 'getAllInvitations', { includeTotalCount: true, orderBy: 'created_asc' });
    expect(all.data).toBeInstanceOf(sc.InvitationSummaryList);
    expect(all.response.headers['x-total-count']).toBe('2');
    expect(all.data.invitations.map((i: any) => [i.id, i.isPublic])).toEqual([
      [publicId, true],
      [privateId, false],
    ]);
    expect((await op(inv, 'getAllInvitations', { tags: ['autumn'] })).invitations.map((i: any) => i.id)).toEqual([privateId]);
    expect((await op(inv, 'getAllInvitations', { filter: publicId.slice(0, 8), filterBy: 'invitation_id' })).invitations.map((i: any) => i.id)).toEqual([publicId]);
    expect((await op(inv, 'getAllInvitations', { since: new Date(Date.now() + 60_000) })).invitations).toEqual([]);
    const priv = await op(inv, 'getPrivateInvitations', {});
    expect(priv).toBeInstanceOf(sc.PrivateInvitationList);
    expect(priv.invitations.map((i: any) => i.id)).toEqual([privateId]);
    expect(priv.invitations[0].registrationCount).toBeUndefined();
    // LCDS's addition (what the console's Registrations column reads): the counts, as each invitation's Get gives them.
    const counted = await call(`${s.api}/invitations/private?includeRegistrationCount=true`, { auth: app });
    expect(counted.body.invitations.map((i: any) => [i.id, i.registrationCount])).toEqual([[privateId, 3]]);
    const publicCounted = await call(`${s.api}/invitations/public?includeRegistrationCount=true`, { auth: app });
    expect(publicCounted.body.invitations.map((i: any) => typeof i.registrationCount)).toEqual(['number']);

    for (let i = 0; i < 100; i++) await call(`${s.api}/invitations/public`, { method: 'POST', auth: app, json: { courseId: 'inv-golf', creatingUserEmail: 'owner@example.com' } });
    const first = await op(inv, 'getPublicInvitations', { orderBy: 'created_asc' });
    expect(first.invitations).toHaveLength(100);
    expect(first.invitations[0].id).toBe(publicId);
    const second = await op(inv, 'getPublicInvitations', { more: first.more });
    expect(second.invitations).toHaveLength(1);
    expect(second.more).toBeUndefined();
    const forged = await failure(inv, 'getPublicInvitations', { more: `${first.more}x` });
    expect(forged.status).toBe(400);
  });

  it('GetInvitationTags, PutInvitationTags, DeleteInvitationTags, PutInvitationTagsBatch', async () => {
    expect((await op(inv, 'getInvitationTags', privateId)).tags).toEqual(['autumn']);
    await op(inv, 'putInvitationTags', privateId, tagList('a', 'b'));
    await op(inv, 'deleteInvitationTags', privateId, tagList('a'));
    await op(inv, 'putInvitationTagsBatch', Object.assign(new sc.BatchTagsSchema(), { ids: [privateId, publicId], tags: ['z'] }));
    expect((await op(inv, 'getInvitationTags', privateId)).tags).toEqual(['b', 'z']);
    expect((await op(inv, 'getInvitationTags', publicId)).tags).toEqual(['spring', 'z']);
    expect((await failure(inv, 'putInvitationTagsBatch', Object.assign(new sc.BatchTagsSchema(), { ids: [privateId, 'nope'], tags: ['y'] }))).status).toBe(404);
    expect((await op(inv, 'getInvitationTags', privateId)).tags).toEqual(['b', 'z']);
  });

  it('bad input is a 4xx with a message; unknown ids and another application ids are 404', async () => {
    const noCourse = await failure(inv, 'createPublicInvitation', Object.assign(new sc.CreatePublicInvitationSchema(), { courseId: 'nope', creatingUserEmail: 'o@example.com' }));
    expect(noCourse.status).toBe(404);
    expect(errorBody(noCourse).message).toMatch(/nope/);
    const bad = await call(`${s.api}/invitations/private`, {
      method: 'POST',
      auth: app,
      json: { courseId: 'inv-golf', creatingUserEmail: 'o@example.com', invitationEmail: { addresses: ['a@example.com'] }, duplicateRegistrationOption: 'MAYBE' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/duplicateRegistrationOption/);
    const empty = await call(`${s.api}/invitations/private`, { method: 'POST', auth: app, json: { courseId: 'inv-golf', creatingUserEmail: 'o@example.com', invitationEmail: { addresses: [] } } });
    expect(empty.status).toBe(400);
    const types = await call(`${s.api}/invitations/public`, { method: 'POST', auth: app, json: { courseId: 'inv-golf', creatingUserEmail: 'o@example.com', registrationCap: 'ten' } });
    expect(types.status).toBe(400);
    const malformed = await call(`${s.api}/invitations/public`, { method: 'POST', auth: app, body: '{"courseId":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect((await call(`${s.api}/invitations/public/${privateId}`, { auth: app })).status).toBe(404);
    expect((await call(`${s.api}/invitations/private/${publicId}/jobStatus`, { auth: app })).status).toBe(404);
    for (const path of [`private/${privateId}`, `public/${publicId}`, `private/${privateId}/jobStatus`, `private/${privateId}/userInvitations`, `${privateId}/tags`]) {
      expect({ path, status: (await call(`${s.api}/invitations/${path}`, { auth: otherApp })).status }).toEqual({ path, status: 404 });
    }
    expect((await call(`${s.api}/invitations`, { auth: otherApp })).body.invitations).toEqual([]);
    expect((await call(`${s.api}/learner/ada@example.com/tags`, { auth: otherApp })).status).toBe(404);
  });

  it('learners: tags, UpdateLearnerInfo on every registration, DeleteAllLearnerData (admins only)', async () => {
    const learnerId = 'ada@example.com';
    expect((await op(learners, 'getLearnerTags', learnerId)).tags).toEqual([]);
    await op(learners, 'putLearnerTags', learnerId, tagList('x', 'y'));
    await op(learners, 'deleteLearnerTags', learnerId, tagList('x'));
    await op(learners, 'putLearnerTagsBatch', Object.assign(new sc.BatchTagsSchema(), { ids: [learnerId, 'grace@example.com'], tags: ['w'] }));
    expect((await op(learners, 'getLearnerTags', learnerId)).tags).toEqual(['w', 'y']);
    expect((await failure(learners, 'getLearnerTags', 'nobody')).status).toBe(404);

    // A second registration of the same learner, outside the invitation.
    await call(`${s.api}/registrations`, { method: 'POST', auth: app, json: { registrationId: 'ada-direct', courseId: 'inv-golf', learner: { id: learnerId, firstName: 'A' } } });
    await invoke(learners, 'updateLearnerInfo', learnerId, Object.assign(new sc.LearnerSchema(), { id: learnerId, firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }));
    const regs = (await call(`${s.api}/registrations?learnerId=${encodeURIComponent(learnerId)}`, { auth: app })).body.registrations;
    expect(regs).toHaveLength(2);
    for (const r of regs) expect(r.learner).toMatchObject({ id: learnerId, firstName: 'Ada', lastName: 'Lovelace' });
    expect((await failure(learners, 'updateLearnerInfo', 'nobody', Object.assign(new sc.LearnerSchema(), { id: 'nobody' }))).status).toBe(404);

    const refused = await failure(learners, 'deleteAllLearnerData', learnerId, 'boss@example.com');
    expect(refused.status).toBe(403);
    await s.app.get(ApplicationAdminsService).add(s.firstStart.application.appId, 'Boss@Example.com');
    expect((await failure(learners, 'deleteAllLearnerData', 'nobody', 'boss@example.com')).status).toBe(404);
    expect((await invoke(learners, 'deleteAllLearnerData', learnerId, 'boss@example.com')).response.status).toBe(204);
    // LearnerErased is published once the whole erasure is done (registrations go before the LRS compaction).
    const erased = await waitFor(() => Promise.resolve(events.filter((e) => e instanceof LearnerErased).map((e) => ({ ...e }))), (list) => list.length > 0, 30_000);
    expect(erased).toEqual([expect.objectContaining({ appId: s.firstStart.application.appId, learnerId })]);
    expect((await call(`${s.api}/registrations?learnerId=${encodeURIComponent(learnerId)}`, { auth: app })).body.registrations).toEqual([]);
    expect((await failure(learners, 'getLearnerTags', learnerId)).status).toBe(404);
    const users = await op(inv, 'getPrivateUserInvitations', privateId, {});
    expect(users.userInvitations.map((u: any) => u.email)).not.toContain('ada@example.com');
  });
});
