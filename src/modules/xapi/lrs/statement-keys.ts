import { createHash } from 'node:crypto';

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- statements are free-form JSON; statement-rules.ts checks their shape */

export type Json = any;

/** An index key of at most 191 characters: the value itself, or `sha256:<hex>` of it when longer. */
export function indexKey(value: string): string {
  return value.length <= 191 ? value : `sha256:${createHash('sha256').update(value).digest('hex')}`;
}

/** The inverse functional identifier of an agent or identified group, as one string (`mbox:mailto:a@b`), or null. */
export function ifiOf(agent: Json): string | null {
  if (!agent || typeof agent !== 'object') return null;
  if (typeof agent.mbox === 'string') return `mbox:${agent.mbox.toLowerCase()}`;
  if (typeof agent.mbox_sha1sum === 'string') return `mbox_sha1sum:${agent.mbox_sha1sum.toLowerCase()}`;
  if (typeof agent.openid === 'string') return `openid:${agent.openid}`;
  if (agent.account && typeof agent.account === 'object') return `account:${agent.account.homePage}|${agent.account.name}`;
  return null;
}

export function agentKey(agent: Json): string | null {
  const ifi = ifiOf(agent);
  return ifi === null ? null : indexKey(ifi);
}

/** The activity id a statement's object names, if its object is an activity. */
export function objectActivityId(statement: Json): string | null {
  const object = statement?.object;
  if (!object || typeof object !== 'object') return null;
  if (object.objectType === undefined || object.objectType === 'Activity') return typeof object.id === 'string' ? object.id : null;
  return null;
}

function asArray(value: Json): Json[] {
  return value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
}

/** The agent key of a statement's object, if its object is an Agent or Group (the `agent` filter matches actor or object). */
export function objectAgentKey(statement: Json): string | null {
  const object = statement?.object;
  if (!object || typeof object !== 'object' || (object.objectType !== 'Agent' && object.objectType !== 'Group')) return null;
  return agentKey(object);
}

/** Every agent key and activity id a statement mentions, for related_agents / related_activities. */
export function relatedKeys(statement: Json): { agents: Set<string>; activities: Set<string> } {
  const agents = new Set<string>();
  const activities = new Set<string>();
  const addAgent = (a: Json) => {
    const key = agentKey(a);
    if (key) agents.add(key);
    for (const m of asArray(a?.member)) {
      const mk = agentKey(m);
      if (mk) agents.add(mk);
    }
  };
  const walk = (s: Json, top: boolean) => {
    addAgent(s.actor);
    const object = s.object;
    if (object && typeof object === 'object') {
      if (object.objectType === 'Agent' || object.objectType === 'Group') addAgent(object);
      else if (object.objectType === 'SubStatement' && top) walk(object, false);
      else if ((object.objectType === undefined || object.objectType === 'Activity') && typeof object.id === 'string') activities.add(indexKey(object.id));
    }
    const ctx = s.context;
    if (ctx && typeof ctx === 'object') {
      if (ctx.instructor) addAgent(ctx.instructor);
      if (ctx.team) addAgent(ctx.team);
      const ca = ctx.contextActivities;
      if (ca && typeof ca === 'object') {
        for (const kind of ['parent', 'grouping', 'category', 'other']) {
          for (const act of asArray(ca[kind])) if (typeof act?.id === 'string') activities.add(indexKey(act.id));
        }
      }
    }
    if (top && s.authority) addAgent(s.authority);
  };
  walk(statement, true);
  return { agents, activities };
}

/**
 * JSON with object keys sorted (code unit order), so two equal statements give the same text: JSON.stringify of the
 * value with its objects' keys put in order (objects already in order, as our own statements are built, are not
 * copied), or, for data JavaScript cannot order so, written out key by key.
 */
export function canonicalJson(value: Json): string {
  const ordered = inKeyOrder(value);
  return ordered === UNORDERABLE ? canonicalJsonByKeys(value) : JSON.stringify(ordered);
}

/** What inKeyOrder answers for data JSON.stringify would not write in key order (see there). */
const UNORDERABLE = Symbol('unorderable');

/**
 * The value with every object's keys in code unit order: the same object where they are already, a copy where not.
 * UNORDERABLE when an object has a key that starts with a digit (JavaScript keeps array-index keys first, in
 * numeric order, whatever order they are put in) or an undefined value (JSON.stringify leaves it out).
 */
function inKeyOrder(value: Json): unknown {
  if (value === null || typeof value !== 'object') return value === undefined ? UNORDERABLE : value;
  if (Array.isArray(value)) {
    let copy: Json[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = inKeyOrder(value[i]);
      if (v === UNORDERABLE) return UNORDERABLE;
      if (v !== value[i]) (copy ??= value.slice())[i] = v;
    }
    return copy ?? value;
  }
  const keys = Object.keys(value);
  let sorted = true;
  let changed = false;
  const values: Json[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const c = k.charCodeAt(0);
    if (c >= 48 && c <= 57) return UNORDERABLE;
    if (i > 0 && keys[i - 1] > k) sorted = false;
    const v = inKeyOrder(value[k]);
    if (v === UNORDERABLE) return UNORDERABLE;
    if (v !== value[k]) changed = true;
    values[i] = v;
  }
  if (sorted && !changed) return value;
  const order = sorted ? keys.map((_, i) => i) : keys.map((_, i) => i).sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
  // Without a prototype, a "__proto__" key (JSON.parse makes it an own property) stays a key.
  const out = Object.create(null) as Record<string, Json>;
  for (const i of order) out[keys[i]] = values[i];
  return out;
}

/** canonicalJson written out key by key (for what inKeyOrder cannot order). */
function canonicalJsonByKeys(value: Json): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += i === 0 ? canonicalJsonByKeys(value[i]) : `,${canonicalJsonByKeys(value[i])}`;
    return `${out}]`;
  }
  const keys = Object.keys(value).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) out += `${i === 0 ? '' : ','}${JSON.stringify(keys[i])}:${canonicalJsonByKeys(value[keys[i]])}`;
  return `${out}}`;
}

/** The properties the LRS sets on a statement, left out of its content hash. */
const LRS_SET = new Set(['stored', 'authority', 'version']);

/**
 * The canonical JSON of a statement without the properties the LRS sets (stored, authority, version): what
 * contentHash hashes, and the body of the stored JSON (see storedJson). `id` stands for the statement's id when it
 * has none (the LRS assigns it).
 */
export function canonicalContent(statement: Json, id: string): string {
  const content = Object.create(null) as Record<string, Json>;
  content.id = id;
  for (const k of Object.keys(statement)) if (k !== 'id' && !LRS_SET.has(k)) content[k] = statement[k];
  return canonicalJson(content);
}

export function hashContent(canonical: string): string {
  return createHash('sha256').update(canonical).digest('hex');
}

/** What identifies a statement's content: everything the client sent except what the LRS sets. */
export function contentHash(statement: Json): string {
  return hashContent(canonicalContent(statement, statement.id));
}

/**
 * The statement as stored: its canonical content (canonicalContent) with the properties the LRS sets put first,
 * without serialising it a second time.
 */
export function storedJson(canonical: string, set: { authority: Json; stored: string; version: string; timestamp?: string }): string {
  const head = `{"authority":${JSON.stringify(set.authority)},"stored":${JSON.stringify(set.stored)},"version":${JSON.stringify(set.version)}${set.timestamp !== undefined ? `,"timestamp":${JSON.stringify(set.timestamp)}` : ''}`;
  return canonical === '{}' ? `${head}}` : `${head},${canonical.slice(1)}`;
}

/** format=ids: agents, groups and activities reduced to their identifiers. */
export function idsFormat(statement: Json): Json {
  const agent = (a: Json): Json => {
    if (!a || typeof a !== 'object') return a;
    const out: Json = { objectType: a.objectType ?? 'Agent' };
    for (const k of ['mbox', 'mbox_sha1sum', 'openid', 'account']) if (a[k] !== undefined) out[k] = a[k];
    if (out.objectType === 'Group' && ifiOf(a) === null && Array.isArray(a.member)) out.member = a.member.map(agent);
    return out;
  };
  // Only the identifier: objectType is not one, and an object without it is an Activity anyway.
  const activity = (act: Json): Json => (act && typeof act === 'object' ? { id: act.id } : act);
  const walk = (s: Json): Json => {
    const out: Json = { ...s };
    if (s.actor) out.actor = agent(s.actor);
    if (s.verb) out.verb = { id: s.verb.id };
    if (s.authority) out.authority = agent(s.authority);
    const o = s.object;
    if (o && typeof o === 'object') {
      if (o.objectType === 'Agent' || o.objectType === 'Group') out.object = agent(o);
      else if (o.objectType === 'SubStatement') out.object = walk(o);
      else if (o.objectType === undefined || o.objectType === 'Activity') out.object = activity(o);
    }
    if (s.context && typeof s.context === 'object') {
      const ctx: Json = { ...s.context };
      if (ctx.instructor) ctx.instructor = agent(ctx.instructor);
      if (ctx.team) ctx.team = agent(ctx.team);
      if (ctx.contextActivities && typeof ctx.contextActivities === 'object') {
        const ca: Json = {};
        for (const [k, v] of Object.entries(ctx.contextActivities)) ca[k] = asArray(v).map(activity);
        ctx.contextActivities = ca;
      }
      out.context = ctx;
    }
    return out;
  };
  return walk(statement);
}

/** Language ranges of an Accept-Language header, best first. */
function languageRanges(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)).find(Boolean);
      return { tag: tag.trim().toLowerCase(), q: q ? Number(q[1]) : 1, i };
    })
    .filter((r) => r.tag !== '' && r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((r) => r.tag);
}

/**
 * One entry of a language map: the best match for the ranges (exact, then by prefix), else (no match, or only `*`)
 * en-US, else the first. Statements are stored with their keys sorted, so "the first" is the first in that order.
 */
function oneLanguage(map: Json, ranges: string[]): Json {
  if (!map || typeof map !== 'object' || Array.isArray(map)) return map;
  const keys = Object.keys(map);
  if (keys.length <= 1) return map;
  const pick =
    ranges.map((r) => keys.find((k) => k.toLowerCase() === r)).find(Boolean) ??
    ranges.map((r) => keys.find((k) => k.toLowerCase().startsWith(`${r}-`) || r.startsWith(`${k.toLowerCase()}-`))).find(Boolean) ??
    keys.find((k) => k.toLowerCase() === 'en-us') ??
    keys[0];
  return { [pick]: map[pick] };
}

/**
 * The `canonical` format: every language map of verbs, activities and attachments reduced to one language, chosen by
 * the request's Accept-Language (Communication 2.1.3); agents as in `exact`.
 */
export function canonicalFormat(statement: Json, acceptLanguage: string | undefined): Json {
  const ranges = languageRanges(acceptLanguage);
  const activity = (a: Json): Json => {
    if (!a || typeof a !== 'object' || !a.definition || typeof a.definition !== 'object') return a;
    const def: Json = { ...a.definition };
    for (const k of ['name', 'description']) if (def[k] !== undefined) def[k] = oneLanguage(def[k], ranges);
    for (const list of ['choices', 'scale', 'source', 'target', 'steps']) {
      if (Array.isArray(def[list])) def[list] = def[list].map((c: Json) => (c && typeof c === 'object' && c.description ? { ...c, description: oneLanguage(c.description, ranges) } : c));
    }
    return { ...a, definition: def };
  };
  const walk = (s: Json): Json => {
    const out: Json = { ...s };
    if (s.verb?.display) out.verb = { ...s.verb, display: oneLanguage(s.verb.display, ranges) };
    const o = s.object;
    if (o && typeof o === 'object') {
      if (o.objectType === 'SubStatement') out.object = walk(o);
      else if (o.objectType === undefined || o.objectType === 'Activity') out.object = activity(o);
    }
    const ca = s.context?.contextActivities;
    if (ca && typeof ca === 'object') {
      const mapped: Json = {};
      for (const [k, v] of Object.entries(ca)) mapped[k] = asArray(v).map(activity);
      out.context = { ...s.context, contextActivities: mapped };
    }
    if (Array.isArray(s.attachments)) {
      out.attachments = s.attachments.map((a: Json) => ({ ...a, display: oneLanguage(a.display, ranges), ...(a.description ? { description: oneLanguage(a.description, ranges) } : {}) }));
    }
    return out;
  };
  return walk(statement);
}
