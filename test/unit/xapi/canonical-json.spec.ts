/**
 * The LRS's canonical JSON (content hashes and the stored form of every statement): the same text as writing every
 * object out with its keys sorted by code unit, for any JSON; stored hashes depend on it never changing.
 */
import { canonicalContent, canonicalJson, contentHash, type Json } from '../../../src/modules/xapi/lrs/statement-keys';
import { commitStatements, type LaunchContext, launchStatements, NOTHING_REPORTED } from '../../../src/modules/player/launch-statements/scorm-profile';

/** The definition: each object's keys sorted by code unit, written key by key (the LRS's first implementation). */
function reference(value: Json): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  return `{${Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${reference(value[k])}`)
    .join(',')}}`;
}

/** Deterministic pseudo-random JSON: nested objects and arrays, keys of every kind (digits, unicode, "__proto__"). */
function randomJson(seed: number, depth = 0): Json {
  let x = Math.imul(seed, 2654435761) >>> 0 || 1;
  const next = (): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
  const keys = ['id', 'b', 'a', 'Z', 'é', '日本', '10', '2', '0x', '__proto__', 'http://example.com/ext', 'a b', '"q"', '', 'ab', 'aa'];
  const leaf = (): Json => [null, true, false, 0, -1.5, 1e21, 'text', '\u2028', 'é', ''][Math.floor(next() * 10)];
  const make = (d: number): Json => {
    const r = d === 0 ? 1 : next();
    if (d > 3 || r < 0.3) return leaf();
    if (r < 0.5) return Array.from({ length: Math.floor(next() * 4) }, () => make(d + 1));
    const out: Record<string, Json> = {};
    const n = Math.floor(next() * 7);
    for (let i = 0; i < n; i++) {
      const k = keys[Math.floor(next() * keys.length)];
      if (k === '__proto__') Object.defineProperty(out, k, { value: make(d + 1), enumerable: true, writable: true, configurable: true });
      else out[k] = make(d + 1);
    }
    return out;
  };
  return make(depth);
}

describe('canonical JSON', () => {
  it('is the keys-sorted text of any JSON, including array-index, unicode and "__proto__" keys', () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const value = randomJson(seed);
      expect(canonicalJson(value)).toBe(reference(value));
      // What JSON.parse gives (a "__proto__" key as an own property) is written the same way.
      expect(canonicalJson(JSON.parse(JSON.stringify(value)))).toBe(reference(value));
    }
  });

  it('leaves its input as it was', () => {
    const value = { b: { d: 1, c: [{ z: 1, y: 2 }] }, a: 2 };
    const before = JSON.stringify(value);
    expect(canonicalJson(value)).toBe('{"a":2,"b":{"c":[{"y":2,"z":1}],"d":1}}');
    expect(JSON.stringify(value)).toBe(before);
  });

  it('a statement\'s content: the id given, without what the LRS sets, keys sorted', () => {
    const statement = { version: '1.0.3', stored: 'x', authority: { name: 'a' }, verb: { id: 'v', display: { 'en-US': 'v' } }, id: 'old', actor: { mbox: 'mailto:a@b.c' }, object: { id: 'o' } };
    expect(canonicalContent(statement, 'new')).toBe('{"actor":{"mbox":"mailto:a@b.c"},"id":"new","object":{"id":"o"},"verb":{"display":{"en-US":"v"},"id":"v"}}');
    // The same content in another key order has the same hash.
    expect(contentHash({ object: { id: 'o' }, id: 'old', actor: { mbox: 'mailto:a@b.c' }, verb: { display: { 'en-US': 'v' }, id: 'v' } })).toBe(contentHash({ ...statement, id: 'old' }));
  });

  it('our own statements (the SCORM profile) are built with their keys in order', () => {
    const c: LaunchContext = { publicUrl: 'http://lms.example', courseId: 'c 1', courseTitle: 'Course', activityId: 'sco-1', activityTitle: 'Lesson', learner: { id: 'l1', name: 'Ann' }, registration: 'f1b8c3a2-1d2e-4f5a-9b6c-7d8e9f0a1b2c', instance: 0, standard: '2004' };
    const cmi = {
      'cmi.completion_status': 'completed',
      'cmi.success_status': 'passed',
      'cmi.score.scaled': '0.9',
      'cmi.session_time': 'PT30S',
      'cmi.interactions.0.id': 'q1',
      'cmi.interactions.0.type': 'choice',
      'cmi.interactions.0.learner_response': 'a',
      'cmi.interactions.0.result': 'correct',
      'cmi.interactions.0.description': 'Question 1',
    };
    const { statements } = commitStatements(c, cmi, NOTHING_REPORTED, new Date(), (verb, suffix) => `00000000-0000-4000-8000-00000000000${suffix || '0'}`.slice(0, 36) + verb.length, true);
    const all = [...launchStatements(c, new Date(), 'k', false), ...statements];
    expect(all.map((s) => (s.verb as { display: Record<string, string> }).display['en-US'])).toEqual(['launched', 'initialized', 'completed', 'passed', 'responded', 'terminated']);
    // In order already: written as they are, the canonical text (the score object keeps the order the reported
    // state's score text was stored in, so it is the one object sorted).
    for (const s of all) for (const [k, v] of Object.entries(s)) if (k !== 'result') expect(JSON.stringify(v)).toBe(canonicalJson(v as Json));
  });
});
