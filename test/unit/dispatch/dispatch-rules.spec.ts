import { oauthSignature, baseUri } from '../../../src/modules/dispatch/oauth1';
import { isWebOrigin, splitName } from '../../../src/modules/dispatch/dispatch-launches';
import { outcomeScore } from '../../../src/modules/dispatch/dispatch-lti';

describe('dispatch rules', () => {
  it('signs as RFC 5849 does (its section 1.2 example, HMAC-SHA1 with a token secret)', () => {
    const params: Array<[string, string]> = [
      ['file', 'vacation.jpg'],
      ['size', 'original'],
      ['oauth_consumer_key', 'dpf43f3p2l4k3l03'],
      ['oauth_token', 'nnch734d00sl2jdk'],
      ['oauth_signature_method', 'HMAC-SHA1'],
      ['oauth_timestamp', '1191242096'],
      ['oauth_nonce', 'kllo9940pd9333jh'],
      ['oauth_version', '1.0'],
    ];
    expect(oauthSignature('GET', 'http://photos.example.net/photos?file=vacation.jpg&size=original', params, 'kd94hf93k423kf44', 'pfkkdhi9sl3r4s00')).toBe('tR3+Ty81lMeYAr/Fid0kMTYa/WM=');
  });

  it('normalizes the base string URI: lower-case scheme and host, no default port, no query', () => {
    expect(baseUri('HTTP://Example.COM:80/r%20v/X?id=123')).toBe('http://example.com/r%20v/X');
    expect(baseUri('https://www.example.net:8080/?q=1')).toBe('https://www.example.net:8080/');
    expect(baseUri('https://lms.example:443/lti')).toBe('https://lms.example/lti');
  });

  it('reads SCORM names (Last, First) and web origins', () => {
    expect(splitName('Lovelace, Ada')).toEqual({ firstName: 'Ada', lastName: 'Lovelace' });
    expect(splitName('Ada')).toEqual({ firstName: 'Ada' });
    expect(splitName('  ')).toEqual({});
    expect(isWebOrigin('https://lms.example')).toBe(true);
    expect(isWebOrigin('http://localhost:8080')).toBe(true);
    expect(isWebOrigin('https://lms.example/')).toBe(false);
    expect(isWebOrigin('javascript:alert(1)')).toBe(false);
    expect(isWebOrigin('null')).toBe(false);
  });

  it('gives LTI the scaled score, else 1 for passed or completed, 0 for failed, nothing before', () => {
    expect(outcomeScore({ completion: 'INCOMPLETE', success: 'UNKNOWN', score: 0.5 })).toBe(0.5);
    expect(outcomeScore({ completion: 'COMPLETED', success: 'UNKNOWN', score: null })).toBe(1);
    expect(outcomeScore({ completion: 'INCOMPLETE', success: 'FAILED', score: null })).toBe(0);
    expect(outcomeScore({ completion: 'UNKNOWN', success: 'UNKNOWN', score: null })).toBeNull();
    expect(outcomeScore({ completion: 'UNKNOWN', success: 'UNKNOWN', score: 1.5 })).toBe(1);
  });
});
