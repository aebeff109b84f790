import { InvalidInputError } from '../../../platform/http/domain-errors';
import type { Json } from './statement-keys';

/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument -- statements are free-form JSON; statement-rules.ts checks their shape */

export const VOIDED_VERB = 'http://adlnet.gov/expapi/verbs/voided';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const IRI = /^[a-z][a-z0-9+.-]*:\S+$/i;
const MAILTO = /^mailto:[^@\s]+@[^@\s]+$/i;
const SHA1 = /^[0-9a-f]{40}$/i;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)$/i;
// ISO 8601 4.4.3.2: PnYnMnDTnHnMnS, or PnW on its own (weeks do not combine with other units).
const ISO_DURATION = /^P((?!$)(\d+(\.\d+)?Y)?(\d+(\.\d+)?M)?(\d+(\.\d+)?D)?(T(?!$)(\d+(\.\d+)?H)?(\d+(\.\d+)?M)?(\d+(\.\d+)?S)?)?|\d+(\.\d+)?W)$/;
const LANGUAGE_TAG = /^[a-z]{1,8}(-[a-z0-9]{1,8})*$/i;
const VERSION = /^(1\.0(\.\d+)?|2\.0(\.\d+)?)$/;

/** A 400 naming the rule broken and where. */
export class StatementRuleError extends InvalidInputError {
  constructor(path: string, rule: string) {
    super(`Invalid statement: ${path} ${rule}`);
  }
}

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

export function isIri(value: unknown): value is string {
  return typeof value === 'string' && IRI.test(value);
}

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function only(path: string, value: Record<string, Json>, allowed: readonly string[]): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) throw new StatementRuleError(`${path}.${key}`, 'is not a property the xAPI specification allows here');
}

function languageMap(path: string, value: unknown): void {
  if (!isObject(value)) throw new StatementRuleError(path, 'must be a language map (an object of language tag → string)');
  for (const [tag, text] of Object.entries(value)) {
    if (!LANGUAGE_TAG.test(tag)) throw new StatementRuleError(`${path}`, `has '${tag}', which is not an RFC 5646 language tag`);
    if (typeof text !== 'string') throw new StatementRuleError(`${path}.${tag}`, 'must be a string');
  }
}

function extensions(path: string, value: unknown): void {
  if (!isObject(value)) throw new StatementRuleError(path, 'must be an object whose keys are IRIs');
  for (const key of Object.keys(value)) if (!IRI.test(key)) throw new StatementRuleError(path, `key '${key}' must be an IRI`);
}

function timestamp(path: string, value: unknown): void {
  if (typeof value !== 'string' || !ISO_TIMESTAMP.test(value) || Number.isNaN(new Date(value).getTime())) {
    throw new StatementRuleError(path, 'must be an ISO 8601 timestamp with a time zone, such as 2024-01-31T12:00:00.000Z');
  }
  if (/-00(:?00)?$/.test(value)) {
    throw new StatementRuleError(path, 'must not use the negative zero offset -00:00');
  }
}

function string(path: string, value: unknown): void {
  if (typeof value !== 'string') throw new StatementRuleError(path, 'must be a string');
}

function agentIfis(path: string, agent: Record<string, Json>): number {
  let count = 0;
  if (agent.mbox !== undefined) {
    if (typeof agent.mbox !== 'string' || !MAILTO.test(agent.mbox)) throw new StatementRuleError(`${path}.mbox`, "must be a mailto IRI such as 'mailto:learner@example.com'");
    count++;
  }
  if (agent.mbox_sha1sum !== undefined) {
    if (typeof agent.mbox_sha1sum !== 'string' || !SHA1.test(agent.mbox_sha1sum)) throw new StatementRuleError(`${path}.mbox_sha1sum`, 'must be 40 hexadecimal digits');
    count++;
  }
  if (agent.openid !== undefined) {
    if (!isIri(agent.openid)) throw new StatementRuleError(`${path}.openid`, 'must be an IRI');
    count++;
  }
  if (agent.account !== undefined) {
    const account = agent.account;
    if (!isObject(account)) throw new StatementRuleError(`${path}.account`, 'must be an object with homePage and name');
    only(`${path}.account`, account, ['homePage', 'name']);
    if (!isIri(account.homePage)) throw new StatementRuleError(`${path}.account.homePage`, 'must be an IRL');
    if (typeof account.name !== 'string' || account.name === '') throw new StatementRuleError(`${path}.account.name`, 'must be a non-empty string');
    count++;
  }
  return count;
}

const AGENT_FIELDS = ['objectType', 'name', 'mbox', 'mbox_sha1sum', 'openid', 'account'] as const;

function agent(path: string, value: unknown, { allowGroup = true, requireObjectType = false } = {}): void {
  if (!isObject(value)) throw new StatementRuleError(path, 'must be an Agent or Group object');
  const type = value.objectType;
  if (requireObjectType && type === undefined) throw new StatementRuleError(`${path}.objectType`, "is required here ('Agent' or 'Group')");
  if (value.name !== undefined) string(`${path}.name`, value.name);
  if (type === 'Group') {
    if (!allowGroup) throw new StatementRuleError(path, 'must be an Agent, not a Group');
    only(path, value, [...AGENT_FIELDS, 'member']);
    const ifis = agentIfis(path, value);
    if (ifis > 1) throw new StatementRuleError(path, 'must have at most one inverse functional identifier (mbox, mbox_sha1sum, openid, account)');
    if (value.member !== undefined) {
      if (!Array.isArray(value.member)) throw new StatementRuleError(`${path}.member`, 'must be an array of Agents');
      value.member.forEach((m: unknown, i: number) => agent(`${path}.member[${i}]`, m, { allowGroup: false }));
    }
    if (ifis === 0 && (!Array.isArray(value.member) || value.member.length === 0)) {
      throw new StatementRuleError(path, 'is an anonymous Group and must list its members');
    }
    return;
  }
  if (type !== undefined && type !== 'Agent') throw new StatementRuleError(`${path}.objectType`, "must be 'Agent' or 'Group'");
  only(path, value, AGENT_FIELDS);
  if (agentIfis(path, value) !== 1) {
    throw new StatementRuleError(path, 'must have exactly one inverse functional identifier (mbox, mbox_sha1sum, openid or account)');
  }
}

/** An `agent` request parameter of the document, Agents and Statement resources: an Agent or identified Group. */
export function validateAgentParameter(name: string, value: unknown): void {
  agent(name, value);
}

function verb(path: string, value: unknown): void {
  if (!isObject(value)) throw new StatementRuleError(path, 'is required and must be an object with an id');
  only(path, value, ['id', 'display']);
  if (!isIri(value.id)) throw new StatementRuleError(`${path}.id`, 'must be an IRI');
  if (value.display !== undefined) languageMap(`${path}.display`, value.display);
}

const INTERACTION_TYPES = ['true-false', 'choice', 'fill-in', 'long-fill-in', 'matching', 'performance', 'sequencing', 'likert', 'numeric', 'other'];

function activity(path: string, value: unknown): void {
  if (!isObject(value)) throw new StatementRuleError(path, 'must be an Activity object');
  only(path, value, ['objectType', 'id', 'definition']);
  if (value.objectType !== undefined && value.objectType !== 'Activity') throw new StatementRuleError(`${path}.objectType`, "must be 'Activity'");
  if (!isIri(value.id)) throw new StatementRuleError(`${path}.id`, 'is required and must be an IRI');
  const def = value.definition;
  if (def === undefined) return;
  if (!isObject(def)) throw new StatementRuleError(`${path}.definition`, 'must be an object');
  only(`${path}.definition`, def, ['name', 'description', 'type', 'moreInfo', 'interactionType', 'correctResponsesPattern', 'choices', 'scale', 'source', 'target', 'steps', 'extensions']);
  if (def.name !== undefined) languageMap(`${path}.definition.name`, def.name);
  if (def.description !== undefined) languageMap(`${path}.definition.description`, def.description);
  if (def.type !== undefined && !isIri(def.type)) throw new StatementRuleError(`${path}.definition.type`, 'must be an IRI');
  if (def.moreInfo !== undefined && !isIri(def.moreInfo)) throw new StatementRuleError(`${path}.definition.moreInfo`, 'must be an IRL');
  if (def.interactionType !== undefined && !INTERACTION_TYPES.includes(def.interactionType)) {
    throw new StatementRuleError(`${path}.definition.interactionType`, `must be one of ${INTERACTION_TYPES.join(', ')}`);
  }
  const interactionProperty = ['correctResponsesPattern', 'choices', 'scale', 'source', 'target', 'steps'].find((k) => def[k] !== undefined);
  if (interactionProperty !== undefined && def.interactionType === undefined) {
    throw new StatementRuleError(`${path}.definition.interactionType`, `is required when the definition has ${interactionProperty}`);
  }
  if (def.correctResponsesPattern !== undefined && (!Array.isArray(def.correctResponsesPattern) || def.correctResponsesPattern.some((p: unknown) => typeof p !== 'string'))) {
    throw new StatementRuleError(`${path}.definition.correctResponsesPattern`, 'must be an array of strings');
  }
  for (const list of ['choices', 'scale', 'source', 'target', 'steps']) {
    if (def[list] === undefined) continue;
    if (!Array.isArray(def[list])) throw new StatementRuleError(`${path}.definition.${list}`, 'must be an array of interaction components');
    def[list].forEach((c: unknown, i: number) => {
      const p = `${path}.definition.${list}[${i}]`;
      if (!isObject(c) || typeof c.id !== 'string') throw new StatementRuleError(p, 'must be an object with a string id');
      only(p, c, ['id', 'description']);
      if (c.description !== undefined) languageMap(`${p}.description`, c.description);
    });
  }
  if (def.extensions !== undefined) extensions(`${path}.definition.extensions`, def.extensions);
}

function statementRef(path: string, value: Record<string, Json>): void {
  only(path, value, ['objectType', 'id']);
  if (!isUuid(value.id)) throw new StatementRuleError(`${path}.id`, 'must be a UUID');
}

function result(path: string, value: unknown): void {
  if (!isObject(value)) throw new StatementRuleError(path, 'must be an object');
  only(path, value, ['score', 'success', 'completion', 'response', 'duration', 'extensions']);
  if (value.score !== undefined) {
    const score = value.score;
    if (!isObject(score)) throw new StatementRuleError(`${path}.score`, 'must be an object');
    only(`${path}.score`, score, ['scaled', 'raw', 'min', 'max']);
    for (const k of ['scaled', 'raw', 'min', 'max']) {
      if (score[k] !== undefined && (typeof score[k] !== 'number' || !Number.isFinite(score[k]))) throw new StatementRuleError(`${path}.score.${k}`, 'must be a number');
    }
    if (score.scaled !== undefined && (score.scaled < -1 || score.scaled > 1)) throw new StatementRuleError(`${path}.score.scaled`, 'must be between -1 and 1');
    if (score.min !== undefined && score.max !== undefined && score.min > score.max) throw new StatementRuleError(`${path}.score.min`, 'must not be greater than max');
    if (score.raw !== undefined && score.min !== undefined && score.raw < score.min) throw new StatementRuleError(`${path}.score.raw`, 'must not be less than min');
    if (score.raw !== undefined && score.max !== undefined && score.raw > score.max) throw new StatementRuleError(`${path}.score.raw`, 'must not be greater than max');
  }
  if (value.success !== undefined && typeof value.success !== 'boolean') throw new StatementRuleError(`${path}.success`, 'must be true or false');
  if (value.completion !== undefined && typeof value.completion !== 'boolean') throw new StatementRuleError(`${path}.completion`, 'must be true or false');
  if (value.response !== undefined) string(`${path}.response`, value.response);
  if (value.duration !== undefined && (typeof value.duration !== 'string' || !ISO_DURATION.test(value.duration))) {
    throw new StatementRuleError(`${path}.duration`, 'must be an ISO 8601 duration such as PT1H30M');
  }
  if (value.extensions !== undefined) extensions(`${path}.extensions`, value.extensions);
}

function context(path: string, value: unknown, objectIsActivity: boolean): void {
  if (!isObject(value)) throw new StatementRuleError(path, 'must be an object');
  only(path, value, ['registration', 'instructor', 'team', 'contextActivities', 'revision', 'platform', 'language', 'statement', 'extensions', 'contextAgents', 'contextGroups']);
  if (value.registration !== undefined && !isUuid(value.registration)) throw new StatementRuleError(`${path}.registration`, 'must be a UUID');
  if (value.instructor !== undefined) agent(`${path}.instructor`, value.instructor);
  if (value.team !== undefined) {
    agent(`${path}.team`, value.team);
    if (value.team.objectType !== 'Group') throw new StatementRuleError(`${path}.team`, 'must be a Group');
  }
  if (value.contextActivities !== undefined) {
    const ca = value.contextActivities;
    if (!isObject(ca)) throw new StatementRuleError(`${path}.contextActivities`, 'must be an object');
    only(`${path}.contextActivities`, ca, ['parent', 'grouping', 'category', 'other']);
    for (const [k, v] of Object.entries(ca)) {
      if (Array.isArray(v)) v.forEach((a, i) => activity(`${path}.contextActivities.${k}[${i}]`, a));
      else activity(`${path}.contextActivities.${k}[0]`, v);
    }
  }
  if (value.revision !== undefined) {
    string(`${path}.revision`, value.revision);
    if (!objectIsActivity) throw new StatementRuleError(`${path}.revision`, 'may only be used when the object is an Activity');
  }
  if (value.platform !== undefined) {
    string(`${path}.platform`, value.platform);
    if (!objectIsActivity) throw new StatementRuleError(`${path}.platform`, 'may only be used when the object is an Activity');
  }
  if (value.language !== undefined && (typeof value.language !== 'string' || !LANGUAGE_TAG.test(value.language))) {
    throw new StatementRuleError(`${path}.language`, 'must be an RFC 5646 language tag');
  }
  if (value.statement !== undefined) {
    if (!isObject(value.statement) || value.statement.objectType !== 'StatementRef') throw new StatementRuleError(`${path}.statement`, 'must be a StatementRef');
    statementRef(`${path}.statement`, value.statement);
  }
  if (value.contextAgents !== undefined) contextActors(`${path}.contextAgents`, value.contextAgents, 'contextAgent', 'agent');
  if (value.contextGroups !== undefined) contextActors(`${path}.contextGroups`, value.contextGroups, 'contextGroup', 'group');
  if (value.extensions !== undefined) extensions(`${path}.extensions`, value.extensions);
}

/** xAPI 2.0 contextAgents / contextGroups: typed wrappers around an Agent or a Group, with optional relevantTypes. */
function contextActors(path: string, value: unknown, objectType: 'contextAgent' | 'contextGroup', key: 'agent' | 'group'): void {
  if (!Array.isArray(value)) throw new StatementRuleError(path, `must be an array of ${objectType} objects`);
  value.forEach((item: unknown, i: number) => {
    const p = `${path}[${i}]`;
    if (!isObject(item)) throw new StatementRuleError(p, `must be a ${objectType} object`);
    only(p, item, ['objectType', key, 'relevantTypes']);
    if (item.objectType !== objectType) throw new StatementRuleError(`${p}.objectType`, `must be '${objectType}'`);
    if (key === 'agent') agent(`${p}.agent`, item.agent, { allowGroup: false });
    else {
      agent(`${p}.group`, item.group);
      if (item.group.objectType !== 'Group') throw new StatementRuleError(`${p}.group`, 'must be a Group');
    }
    if (item.relevantTypes !== undefined && (!Array.isArray(item.relevantTypes) || item.relevantTypes.length === 0 || !item.relevantTypes.every(isIri))) {
      throw new StatementRuleError(`${p}.relevantTypes`, 'must be a non-empty array of IRIs');
    }
  });
}

function attachments(path: string, value: unknown): void {
  if (!Array.isArray(value)) throw new StatementRuleError(path, 'must be an array');
  value.forEach((a: unknown, i: number) => {
    const p = `${path}[${i}]`;
    if (!isObject(a)) throw new StatementRuleError(p, 'must be an object');
    only(p, a, ['usageType', 'display', 'description', 'contentType', 'length', 'sha2', 'fileUrl']);
    if (!isIri(a.usageType)) throw new StatementRuleError(`${p}.usageType`, 'must be an IRI');
    languageMap(`${p}.display`, a.display);
    if (a.description !== undefined) languageMap(`${p}.description`, a.description);
    string(`${p}.contentType`, a.contentType);
    if (!Number.isInteger(a.length) || (a.length as number) < 0) throw new StatementRuleError(`${p}.length`, 'must be a non-negative integer');
    string(`${p}.sha2`, a.sha2);
    if (a.fileUrl !== undefined && !isIri(a.fileUrl)) throw new StatementRuleError(`${p}.fileUrl`, 'must be an IRL');
  });
}

function object(path: string, value: unknown, top: boolean): void {
  if (!isObject(value)) throw new StatementRuleError(path, 'is required and must be an object');
  const type = value.objectType;
  if (type === undefined || type === 'Activity') return activity(path, value);
  if (type === 'Agent' || type === 'Group') return agent(path, value);
  if (type === 'StatementRef') return statementRef(path, value);
  if (type === 'SubStatement') {
    if (!top) throw new StatementRuleError(path, 'is a SubStatement and must not contain another SubStatement');
    only(path, value, ['objectType', 'actor', 'verb', 'object', 'result', 'context', 'timestamp', 'attachments']);
    body(path, value, false);
    return;
  }
  throw new StatementRuleError(`${path}.objectType`, 'must be Activity, Agent, Group, StatementRef or SubStatement');
}

function body(path: string, s: Record<string, Json>, top: boolean): void {
  if (s.actor === undefined) throw new StatementRuleError(`${path}.actor`, 'is required');
  agent(`${path}.actor`, s.actor);
  verb(`${path}.verb`, s.verb);
  object(`${path}.object`, s.object, top);
  if (s.result !== undefined) result(`${path}.result`, s.result);
  const objectIsActivity = isObject(s.object) && (s.object.objectType === undefined || s.object.objectType === 'Activity');
  if (s.context !== undefined) context(`${path}.context`, s.context, objectIsActivity);
  if (s.timestamp !== undefined) timestamp(`${path}.timestamp`, s.timestamp);
  if (s.attachments !== undefined) attachments(`${path}.attachments`, s.attachments);
}

/** An authority is an Agent, or an anonymous Group of exactly two Agents (OAuth: the application and the user). */
function authority(path: string, value: unknown): void {
  agent(path, value);
  if (isObject(value) && value.objectType === 'Group') {
    if (agentIfis(path, value) > 0) throw new StatementRuleError(path, 'is a Group and must be anonymous (an OAuth consumer and user)');
    if (!Array.isArray(value.member) || value.member.length !== 2) throw new StatementRuleError(`${path}.member`, 'must list exactly two Agents');
  }
}

/**
 * Checks one statement against a pragmatic core of the xAPI rules (Data part, section 2) and normalises it
 * (id lower-cased, contextActivities as arrays). Throws StatementRuleError naming the rule broken. The input is not
 * changed: the result is a shallow copy, or a deep one when something had to be normalised.
 */
export function validateStatement(input: unknown, path = 'statement'): Record<string, Json> {
  if (!isObject(input)) throw new StatementRuleError(path, 'must be a JSON object');
  only(path, input, ['id', 'actor', 'verb', 'object', 'result', 'context', 'timestamp', 'stored', 'authority', 'version', 'attachments']);
  for (const key in input) if (input[key] === null) throw new StatementRuleError(`${path}.${key}`, 'must not be null');
  if (input.id !== undefined && !isUuid(input.id)) throw new StatementRuleError(`${path}.id`, 'must be a UUID');
  if (input.version !== undefined && (typeof input.version !== 'string' || !VERSION.test(input.version))) {
    throw new StatementRuleError(`${path}.version`, 'must be 1.0.x or 2.0.x');
  }
  if (input.stored !== undefined) timestamp(`${path}.stored`, input.stored);
  if (input.authority !== undefined) authority(`${path}.authority`, input.authority);
  body(path, input, true);
  if (isObject(input.verb) && input.verb.id === VOIDED_VERB && (!isObject(input.object) || input.object.objectType !== 'StatementRef')) {
    throw new StatementRuleError(`${path}.object`, 'of a voiding statement must be a StatementRef to the statement it voids');
  }
  const idToLower = typeof input.id === 'string' && input.id !== input.id.toLowerCase();
  const wrap = (s: Record<string, Json>): boolean => isObject(s.context) && isObject(s.context.contextActivities) && Object.values(s.context.contextActivities).some((v) => !Array.isArray(v));
  const sub = isObject(input.object) && input.object.objectType === 'SubStatement' ? input.object : null;
  if (!idToLower && !wrap(input) && !(sub && wrap(sub))) return { ...input };
  const s: Record<string, Json> = structuredClone(input);
  if (idToLower) s.id = (s.id as string).toLowerCase();
  for (const target of [s, sub ? s.object : null]) {
    const ca = target?.context?.contextActivities;
    // The LRS returns every contextActivities value as an array, even when a single activity arrived.
    if (isObject(ca)) for (const [k, v] of Object.entries(ca)) if (!Array.isArray(v)) ca[k] = [v];
  }
  return s;
}
