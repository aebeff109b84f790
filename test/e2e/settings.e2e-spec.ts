import { DataSource } from 'typeorm';
import { basic, call, startTestServer, TestServer } from '../support/test-server';

// The official client ships no type declarations.
const sc: any = require('@rusticisoftware/scormcloud-api-v2-client-javascript');

function invoke<T = any>(api: any, method: string, ...args: unknown[]): Promise<T> {
  return new Promise((resolve, reject) => {
    api[method](...args, (error: Error | null, data: T) => (error ? reject(error) : resolve(data)));
  });
}

type Item = { id: string; effectiveValue: string; effectiveValueSource: string; explicitValue?: string; metadata?: Record<string, unknown> };

describe('application configuration (GetApplicationConfiguration, SetApplicationConfiguration, DeleteApplicationConfigurationSetting)', () => {
  let s: TestServer;
  let app: string;
  let mgmt: string;
  const url = (query = '') => `${s.api}/appManagement/configuration${query}`;

  beforeAll(async () => {
    s = await startTestServer();
    app = basic(s.firstStart.application.appId, s.firstStart.application.secretKey);
    mgmt = basic(s.firstStart.management.appId, s.firstStart.management.secretKey);
  });
  afterAll(async () => s?.close());

  async function items(auth: string, query = ''): Promise<Map<string, Item>> {
    const r = await call<{ settingItems: Item[] }>(url(query), { auth });
    expect(r.status).toBe(200);
    return new Map(r.body.settingItems.map((i) => [i.id, i]));
  }

  const post = (auth: string, settings: unknown, query = '') => call(url(query), { method: 'POST', auth, json: { settings } });
  const del = (auth: string, id: string, query = '') => call(url(`/${encodeURIComponent(id)}${query}`), { method: 'DELETE', auth });

  async function newApp(name: string): Promise<{ id: string; auth: string }> {
    const created = await call(`${s.api}/appManagement/applications`, { method: 'POST', auth: mgmt, json: { name } });
    const creds = await call(`${s.api}/appManagement/${created.body.id}/credentials`, { auth: mgmt });
    return { id: created.body.id, auth: basic(created.body.id, creds.body.credentials[0].credential) };
  }

  async function token(auth: string, scope: string): Promise<string> {
    const r = await call(`${s.api}/oauth/authenticate/application/token`, {
      method: 'POST',
      auth,
      body: new URLSearchParams({ scope }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(200);
    return `Bearer ${r.body.access_token}`;
  }

  it('lists every setting in id order with its default, and metadata on request', async () => {
    const r = await call<{ settingItems: Item[] }>(url('?includeMetadata=true'), { auth: app });
    expect(r.status).toBe(200);
    const list = r.body.settingItems;
    // 174 catalogue ids, less the postback password which is never listed.
    expect(list).toHaveLength(173);
    const ids = list.map((i) => i.id);
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
    expect(ids).not.toContain('ApiRollupRegistrationAuthPassword');
    for (const item of list) {
      expect(item.effectiveValueSource).toBe('default');
      expect(item.explicitValue).toBeUndefined();
      expect(item.effectiveValue).toBe(item.metadata!.default);
    }
    const launch = list.find((i) => i.id === 'PlayerLaunchType')!;
    expect(launch).toEqual({
      id: 'PlayerLaunchType',
      effectiveValue: 'FRAMESET',
      effectiveValueSource: 'default',
      metadata: {
        default: 'FRAMESET',
        dataType: 'Enum.LaunchTypeValue',
        settingDescription: expect.any(String),
        level: 'Registration',
        learningStandardVariant: 'either',
        validValues: expect.arrayContaining([{ value: 'NEW_WINDOW', valueDescription: expect.any(String) }]),
      },
    });
    expect((launch.metadata!.validValues as unknown[]).length).toBe(5);
    const byId = new Map(list.map((i) => [i.id, i]));
    expect(byId.get('PlayerLogoutCausesPlayerExit')!.metadata).toMatchObject({ dataType: 'bool', learningStandards: ['SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'] });
    expect(byId.get('ApiPostbackTimeoutSeconds')!.metadata).toMatchObject({ level: 'Tenant', dataType: 'int', default: '10' });
    expect(byId.get('ApiRollupRegistrationAuthType')!.effectiveValue).toBe('form');
    expect(byId.get('UseModernPlayer')!.metadata!.learningStandards).toBeUndefined();

    const plain = await call<{ settingItems: Item[] }>(url(), { auth: app });
    expect(plain.body.settingItems).toHaveLength(173);
    expect(plain.body.settingItems.every((i) => i.metadata === undefined)).toBe(true);
  });

  it('sets application values in their canonical form, and a deleted value falls back to the default', async () => {
    const set = await post(app, [
      { settingId: 'PlayerLaunchType', value: 'new_window' },
      { settingId: 'UseModernPlayer', value: 'FALSE', explicit: true },
      { settingId: 'PlayerShowNavBar', value: 'true' },
      { settingId: 'PlayerDesiredWidth', value: '1024' },
      { settingId: 'ApiRollupRegistrationFormat', value: 'FULL' },
      { settingId: 'xAPIValidations', value: 'signaturecontenttype,NoUnexpectedParameters' },
      { settingId: 'ApiRollupRegistrationAuthPassword', value: 's3cret' },
    ]);
    expect(set.status).toBe(204);
    expect(set.body).toBe('');
    let now = await items(app);
    expect(now.get('PlayerLaunchType')).toEqual({ id: 'PlayerLaunchType', effectiveValue: 'NEW_WINDOW', effectiveValueSource: 'application', explicitValue: 'NEW_WINDOW' });
    expect(now.get('UseModernPlayer')).toMatchObject({ effectiveValue: 'false', explicitValue: 'false' });
    expect(now.get('PlayerShowNavBar')).toMatchObject({ effectiveValue: 'YES', effectiveValueSource: 'application' });
    expect(now.get('PlayerDesiredWidth')).toMatchObject({ effectiveValue: '1024' });
    expect(now.get('ApiRollupRegistrationFormat')).toMatchObject({ effectiveValue: 'full' });
    expect(now.get('xAPIValidations')).toMatchObject({ effectiveValue: 'SignatureContentType, NoUnexpectedParameters' });
    expect(now.has('ApiRollupRegistrationAuthPassword')).toBe(false);

    // Setting again overwrites; the last of repeated ids wins.
    expect((await post(app, [{ settingId: 'PlayerDesiredWidth', value: '800' }, { settingId: 'PlayerDesiredWidth', value: '640' }])).status).toBe(204);
    expect((await items(app)).get('PlayerDesiredWidth')!.effectiveValue).toBe('640');

    expect((await del(app, 'PlayerLaunchType')).status).toBe(204);
    now = await items(app);
    expect(now.get('PlayerLaunchType')).toEqual({ id: 'PlayerLaunchType', effectiveValue: 'FRAMESET', effectiveValueSource: 'default' });
    expect(now.get('UseModernPlayer')!.explicitValue).toBe('false');
    // Deleting what is not set is not an error.
    expect((await del(app, 'PlayerLaunchType')).status).toBe(204);
    expect((await post(app, [])).status).toBe(204);
  });

  it('keeps learning-standard bucket values in their bucket, above the application values', async () => {
    const bucket = '?learningStandard=SCORM12&singleSco=true';
    expect((await post(app, [{ settingId: 'PlayerScoLaunchType', value: 'FRAMESET' }])).status).toBe(204);
    expect((await post(app, [{ settingId: 'PlayerScoLaunchType', value: 'NEW_WINDOW_AFTER_CLICK' }], bucket)).status).toBe(204);

    const inBucket = await items(app, bucket);
    expect(inBucket.get('PlayerScoLaunchType')).toEqual({
      id: 'PlayerScoLaunchType',
      effectiveValue: 'NEW_WINDOW_AFTER_CLICK',
      effectiveValueSource: 'learningStandardForApplication',
      explicitValue: 'NEW_WINDOW_AFTER_CLICK',
    });
    // A bucket lists only the settings that apply to its standard.
    expect(inBucket.has('PlayerEnableFlowNav')).toBe(true);
    expect(inBucket.has('PlayerLogoutCausesPlayerExit')).toBe(false);
    expect(inBucket.get('PlayerDesiredWidth')).toMatchObject({ effectiveValue: '640', effectiveValueSource: 'application' });
    expect(inBucket.get('PlayerDesiredWidth')!.explicitValue).toBeUndefined();

    const multi = await items(app, '?learningStandard=SCORM12&singleSco=false');
    expect(multi.get('PlayerScoLaunchType')).toEqual({ id: 'PlayerScoLaunchType', effectiveValue: 'FRAMESET', effectiveValueSource: 'application' });
    const other = await items(app, '?learningStandard=scorm20043rdedition&singleSco=true');
    expect(other.get('PlayerScoLaunchType')!.effectiveValueSource).toBe('application');
    expect(other.has('PlayerLogoutCausesPlayerExit')).toBe(true);
    expect((await items(app)).get('PlayerScoLaunchType')).toMatchObject({ effectiveValue: 'FRAMESET', effectiveValueSource: 'application', explicitValue: 'FRAMESET' });

    // Deleting the application value leaves the bucket alone; deleting the bucket value falls back to the application.
    expect((await del(app, 'PlayerScoLaunchType', bucket)).status).toBe(204);
    expect((await items(app, bucket)).get('PlayerScoLaunchType')).toEqual({ id: 'PlayerScoLaunchType', effectiveValue: 'FRAMESET', effectiveValueSource: 'application' });

    for (const query of ['?learningStandard=SCORM12', '?singleSco=true']) {
      const r = await call(url(query), { auth: app });
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/learningStandard and singleSco/);
      expect((await post(app, [{ settingId: 'PlayerScoLaunchType', value: 'FRAMESET' }], query)).status).toBe(400);
    }
    const unknown = await call(url('?learningStandard=SCORM99&singleSco=true'), { auth: app });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/learningStandard must be one of .*SCORM12/);
    const badBool = await call(url('?learningStandard=SCORM12&singleSco=maybe'), { auth: app });
    expect(badBool.status).toBe(400);
    expect(badBool.body.message).toMatch(/singleSco/);
  });

  it('refuses unknown ids, server-wide ids, bad values and misplaced Tenant settings with a 400 naming the setting; nothing is written', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [[{ settingId: 'PlayerEnablePrevNext', value: 'YES' }], /PlayerEnablePrevNext is not a valid setting ID/],
      [[{ settingId: 'TenancyEnabled', value: 'true' }], /setting TenancyEnabled cannot be set through the API/],
      [[{ settingId: 'PlayerLaunchType', value: 'POPUP' }], /PlayerLaunchType.*FRAMESET, NEW_WINDOW/],
      [[{ settingId: 'UseModernPlayer', value: 'yes' }], /UseModernPlayer.*true, false/],
      [[{ settingId: 'PlayerShowNavBar', value: 'maybe' }], /PlayerShowNavBar.*YES, NO/],
      [[{ settingId: 'PlayerDesiredWidth', value: '-5' }], /PlayerDesiredWidth.*whole number from 0/],
      [[{ settingId: 'ContentVaultAuthExpiry', value: '10' }], /ContentVaultAuthExpiry.*from 300 to 31540000/],
      [[{ settingId: 'ConcurrentLaunchDetectionHistoryRows', value: '2.5' }], /ConcurrentLaunchDetectionHistoryRows/],
      [[{ settingId: 'xAPIRewriteStatementModifier', value: '[1]' }], /xAPIRewriteStatementModifier.*JSON object/],
      [[{ settingId: 'xAPIValidations', value: 'SignatureContentType,Nope' }], /xAPIValidations/],
      [[{ settingId: 'PlayerLaunchType', value: 10 }], /value must be a string/],
      [[{ settingId: 'PlayerLaunchType' }], /value/],
      [[{ value: 'x' }], /settingId/],
      [[{ settingId: 'PlayerLaunchType', value: 'FRAMESET', extra: 1 }], /extra/],
      ['PlayerLaunchType', /settings/],
    ];
    for (const [settings, message] of cases) {
      const r = await post(app, settings);
      expect({ settings, status: r.status }).toEqual({ settings, status: 400 });
      expect(r.body.message).toMatch(message);
    }
    expect((await call(url(), { method: 'POST', auth: app, json: {} })).status).toBe(400);

    // Tenant-level settings belong to the application itself, not to a learning-standard bucket.
    const tenant = await post(app, [{ settingId: 'ApiPostbackTimeoutSeconds', value: '20' }], '?learningStandard=AICC&singleSco=false');
    expect(tenant.status).toBe(400);
    expect(tenant.body.message).toMatch(/ApiPostbackTimeoutSeconds.*application level/);
    expect((await post(app, [{ settingId: 'ApiPostbackTimeoutSeconds', value: '20' }])).status).toBe(204);
    expect((await items(app)).get('ApiPostbackTimeoutSeconds')).toMatchObject({ effectiveValue: '20', effectiveValueSource: 'application' });

    // All or nothing: one bad value and the good ones are not written either.
    const mixed = await post(app, [
      { settingId: 'EnableClientDebugger', value: 'true' },
      { settingId: 'PlayerLaunchType', value: 'sideways' },
      { settingId: 'NoSuchSetting', value: '1' },
    ]);
    expect(mixed.status).toBe(400);
    expect(mixed.body.message).toMatch(/PlayerLaunchType/);
    expect(mixed.body.message).toMatch(/NoSuchSetting/);
    expect((await items(app)).get('EnableClientDebugger')!.effectiveValueSource).toBe('default');

    const delUnknown = await del(app, 'NoSuchSetting');
    expect(delUnknown.status).toBe(400);
    expect(delUnknown.body.message).toMatch(/NoSuchSetting/);
    const delEngine = await del(app, 'ApiRoot');
    expect(delEngine.status).toBe(400);
    expect(delEngine.body.message).toMatch(/ApiRoot cannot be set/);
  });

  it('keeps each application to its own values, and drops them with the application', async () => {
    const other = await newApp('settings-other');
    expect((await post(app, [{ settingId: 'PlayerCaptureHistory', value: 'NO' }])).status).toBe(204);
    expect((await items(other.auth)).get('PlayerCaptureHistory')).toEqual({ id: 'PlayerCaptureHistory', effectiveValue: 'YES', effectiveValueSource: 'default' });
    expect((await post(other.auth, [{ settingId: 'PlayerCaptureHistory', value: 'yes' }])).status).toBe(204);
    expect((await items(other.auth)).get('PlayerCaptureHistory')).toMatchObject({ effectiveValue: 'YES', effectiveValueSource: 'application' });
    expect((await items(app)).get('PlayerCaptureHistory')).toMatchObject({ effectiveValue: 'NO', explicitValue: 'NO' });
    // Deleting in one application does not touch the other's value.
    expect((await del(other.auth, 'PlayerCaptureHistory')).status).toBe(204);
    expect((await items(app)).get('PlayerCaptureHistory')!.explicitValue).toBe('NO');

    expect((await post(other.auth, [{ settingId: 'PlayerCaptureHistory', value: 'NO' }])).status).toBe(204);
    expect((await call(`${s.api}/appManagement/applications/${other.id}`, { method: 'DELETE', auth: mgmt })).status).toBe(204);
    const rows: unknown[] = await s.app.get(DataSource).query('SELECT setting_id FROM setting_value WHERE app_id = ?', [other.id]);
    expect(rows).toEqual([]);
  });

  it('takes basic credentials of the application or a token with read / write; other scopes get 403', async () => {
    expect((await call(url())).status).toBe(401);

    const read = await token(app, 'read');
    expect((await call(url(), { auth: read })).status).toBe(200);
    expect((await post(read, [{ settingId: 'EnableClientDebugger', value: 'true' }])).status).toBe(403);

    const course = await token(app, 'read:course');
    const denied = await call(url(), { auth: course });
    expect(denied.status).toBe(403);

    const write = await token(app, 'write');
    expect((await post(write, [{ settingId: 'EnableClientDebugger', value: 'true' }])).status).toBe(204);
    expect((await del(write, 'EnableClientDebugger')).status).toBe(204);
    expect((await del(read, 'EnableClientDebugger')).status).toBe(403);
  });

  it('works with the official JavaScript client, learning-standard buckets included', async () => {
    const apiClient = new sc.ApiClient();
    apiClient.basePath = s.api;
    apiClient.cache = false;
    Object.assign(apiClient.authentications.APP_NORMAL, { username: s.firstStart.application.appId, password: s.firstStart.application.secretKey });
    const mgmtApi = new sc.ApplicationManagementApi(apiClient);

    const entry = (settingId: string, value: string) => Object.assign(new sc.SettingsIndividualSchema(), { settingId, value });
    const body = Object.assign(new sc.SettingsPostSchema(), { settings: [entry('PlayerLaunchType', 'NEW_WINDOW_AFTER_CLICK'), entry('PlayerShowHelp', 'YES')] });
    await invoke(mgmtApi, 'setApplicationConfiguration', body, {});
    await invoke(mgmtApi, 'setApplicationConfiguration', Object.assign(new sc.SettingsPostSchema(), { settings: [entry('PlayerShowHelp', 'NO')] }), { learningStandard: 'CMI5', singleSco: false });

    const list = await invoke<any>(mgmtApi, 'getApplicationConfiguration', { includeMetadata: true });
    expect(list).toBeInstanceOf(sc.SettingListSchema);
    const launch = list.settingItems.find((i: any) => i.id === 'PlayerLaunchType');
    expect(launch).toBeInstanceOf(sc.SettingItem);
    expect(launch.effectiveValue).toBe('NEW_WINDOW_AFTER_CLICK');
    expect(launch.effectiveValueSource).toBe('application');
    expect(launch.explicitValue).toBe('NEW_WINDOW_AFTER_CLICK');
    expect(launch.metadata).toBeInstanceOf(sc.SettingMetadata);
    expect(launch.metadata._default).toBe('FRAMESET');
    expect(launch.metadata.validValues[0]).toBeInstanceOf(sc.SettingValidValue);

    const cmi5 = await invoke<any>(mgmtApi, 'getApplicationConfiguration', { learningStandard: 'CMI5', singleSco: false });
    expect(cmi5.settingItems.find((i: any) => i.id === 'PlayerShowHelp')).toMatchObject({ effectiveValue: 'NO', effectiveValueSource: 'learningStandardForApplication' });
    await invoke(mgmtApi, 'deleteApplicationConfigurationSetting', 'PlayerShowHelp', { learningStandard: 'CMI5', singleSco: false });
    const after = await invoke<any>(mgmtApi, 'getApplicationConfiguration', { learningStandard: 'CMI5', singleSco: false });
    expect(after.settingItems.find((i: any) => i.id === 'PlayerShowHelp')).toMatchObject({ effectiveValue: 'YES', effectiveValueSource: 'application' });
    await invoke(mgmtApi, 'deleteApplicationConfigurationSetting', 'PlayerLaunchType', {});

    const refused = await invoke(mgmtApi, 'setApplicationConfiguration', Object.assign(new sc.SettingsPostSchema(), { settings: [entry('NotASetting', 'x')] }), {}).catch((e: any) => e);
    expect(refused.status).toBe(400);
    expect(refused.response.body.message).toMatch(/NotASetting/);
  });
});
