import { ENGINE_ONLY_SETTING_IDS, LEARNING_STANDARDS, LearningStandardName, SettingDefinition, SETTINGS } from './setting-catalogue';

/** Longest value accepted for any setting (characters). */
export const MAX_SETTING_VALUE_LENGTH = 65_536;

const BY_ID: ReadonlyMap<string, SettingDefinition> = new Map(SETTINGS.map((s) => [s.id, s]));

export function findSetting(id: string): SettingDefinition | undefined {
  return BY_ID.get(id);
}

export function isEngineOnlySetting(id: string): boolean {
  return ENGINE_ONLY_SETTING_IDS.has(id);
}

/** The API's name of a learning standard, in any case; undefined when it is not one. */
export function parseLearningStandard(value: string): LearningStandardName | undefined {
  const upper = value.trim().toUpperCase();
  return (LEARNING_STANDARDS as readonly string[]).includes(upper) ? (upper as LearningStandardName) : undefined;
}

export type NormalizedValue = { ok: true; value: string } | { ok: false; message: string };

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Checks a value against its setting's type and gives the form it is stored in: booleans and enum names in
 * their canonical spelling (accepted in any case), numbers without padding, everything else as given.
 */
export function normalizeSettingValue(def: SettingDefinition, raw: string): NormalizedValue {
  const bad = (expected: string): NormalizedValue => ({
    ok: false,
    message: `invalid value '${raw.length > 100 ? `${raw.slice(0, 100)}…` : raw}' for setting ${def.id}: ${expected}`,
  });
  if (raw.length > MAX_SETTING_VALUE_LENGTH) return bad(`at most ${MAX_SETTING_VALUE_LENGTH} characters`);
  const text = raw.trim();
  switch (def.kind) {
    case 'bool': {
      const lower = text.toLowerCase();
      return lower === 'true' || lower === 'false' ? { ok: true, value: lower } : bad('valid values are true, false');
    }
    case 'yesNo': {
      const lower = text.toLowerCase();
      if (lower === 'yes' || lower === 'true') return { ok: true, value: 'YES' };
      if (lower === 'no' || lower === 'false') return { ok: true, value: 'NO' };
      return bad('valid values are YES, NO');
    }
    case 'int': {
      const min = def.min ?? Number.MIN_SAFE_INTEGER;
      const max = def.max ?? Number.MAX_SAFE_INTEGER;
      const n = INTEGER.test(text) ? Number(text) : NaN;
      return Number.isSafeInteger(n) && n >= min && n <= max ? { ok: true, value: String(n) } : bad(`a whole number from ${min} to ${max}`);
    }
    case 'double': {
      if (text === '') return { ok: true, value: '' };
      const n = NUMBER.test(text) ? Number(text) : NaN;
      return Number.isFinite(n) ? { ok: true, value: String(n) } : bad('a number, or empty for none');
    }
    case 'enum': {
      const match = def.validValues?.find((v) => v.value.toLowerCase() === text.toLowerCase());
      return match ? { ok: true, value: match.value } : bad(`valid values are ${validList(def)}`);
    }
    case 'enumList': {
      const parts = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
      const canonical: string[] = [];
      for (const part of parts) {
        const match = def.validValues?.find((v) => v.value.toLowerCase() === part.toLowerCase());
        if (!match) return bad(`a comma-separated list of ${validList(def)}`);
        if (!canonical.includes(match.value)) canonical.push(match.value);
      }
      return { ok: true, value: canonical.join(', ') };
    }
    case 'jsonObject':
    case 'jsonArray': {
      if (text === '') return { ok: true, value: '' };
      const wantArray = def.kind === 'jsonArray';
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return bad(wantArray ? 'a JSON array' : 'a JSON object');
      }
      const shapeOk = wantArray ? Array.isArray(parsed) : typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
      return shapeOk ? { ok: true, value: text } : bad(wantArray ? 'a JSON array' : 'a JSON object');
    }
    case 'string':
      return { ok: true, value: raw };
  }
}

function validList(def: SettingDefinition): string {
  return (def.validValues ?? []).map((v) => v.value).join(', ');
}
