import { ConfigError, loadConfig } from '../../../src/config/app-config';
import { contentKeyOf, splitConfiguration } from '../../../src/modules/connectors/connector-config';

const base = { DATA_DIR: '/srv/lcds-data', LCDS_MASTER_KEY: 'ab'.repeat(32) };

describe('LCDS_AIPLUGIN_URL', () => {
  it('is null when unset, an http(s) URL without trailing slashes when set, a configuration error otherwise', () => {
    expect(loadConfig(base).aiPlugin).toEqual({ url: null });
    expect(loadConfig({ ...base, LCDS_AIPLUGIN_URL: 'https://partner.example.com/api//' }).aiPlugin).toEqual({ url: 'https://partner.example.com/api' });
    for (const bad of ['ftp://partner.example.com', 'not a url']) {
      expect(() => loadConfig({ ...base, LCDS_AIPLUGIN_URL: bad })).toThrow(ConfigError);
    }
  });
});

describe('content connector configurations', () => {
  it('splits what is answered from what is sealed; an update keeps secrets it does not give', () => {
    expect(splitConfiguration('HTTP', { url: 'https://files.example.com/', username: 'u', password: 'p', headers: { 'X-A': 'b' } })).toEqual({
      configuration: { url: 'https://files.example.com/', username: 'u' },
      secrets: { password: 'p', headers: { 'X-A': 'b' } },
    });
    expect(splitConfiguration('S3', { bucket: 'b', accessKeyId: 'k' }, { secretAccessKey: 's' })).toEqual({ configuration: { bucket: 'b', accessKeyId: 'k' }, secrets: { secretAccessKey: 's' } });
    expect(() => splitConfiguration('S3', { bucket: 'b', accessKeyId: 'k' })).toThrow(/secretAccessKey is required/);
  });

  it('takes content keys that stay under the prefix or base URL only', () => {
    expect(contentKeyOf('/team/golf.zip')).toBe('team/golf.zip');
    for (const bad of ['', '../x.zip', 'a/../b.zip', 'a//b.zip', 'a\\b.zip', './a.zip', undefined]) expect(() => contentKeyOf(bad)).toThrow(/relative path/);
  });
});
