import { InvalidInputError } from '../../platform/http/domain-errors';
import type { ConnectorType } from './entities/content-connector.entity';

export const CONNECTOR_TYPES: readonly ConnectorType[] = ['S3', 'HTTP'];

/** Fields of each type's configuration: `public` ones are stored and answered, `secret` ones sealed and never answered. */
const FIELDS: Record<ConnectorType, { required: string[]; public: string[]; secret: string[] }> = {
  S3: { required: ['bucket', 'accessKeyId', 'secretAccessKey'], public: ['endpoint', 'region', 'bucket', 'prefix', 'accessKeyId'], secret: ['secretAccessKey'] },
  HTTP: { required: ['url'], public: ['url', 'username'], secret: ['password', 'headers'] },
};

export interface SplitConfiguration {
  configuration: Record<string, unknown>;
  secrets: Record<string, unknown>;
}

const isHttpUrl = (v: string) => {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
};

export function connectorTypeOf(value: string): ConnectorType {
  const type = CONNECTOR_TYPES.find((t) => t === value);
  if (!type) throw new InvalidInputError(`contentConnectorType must be one of ${CONNECTOR_TYPES.join(', ')}`);
  return type;
}

/**
 * Checks a configuration (400 naming the field) and splits it into what is answered and what is sealed. `previous`
 * (an update): secret fields not given keep their values.
 */
export function splitConfiguration(type: ConnectorType, config: Record<string, unknown>, previous?: Record<string, unknown>): SplitConfiguration {
  const fields = FIELDS[type];
  const known = [...fields.public, ...fields.secret];
  const unknown = Object.keys(config).filter((k) => !known.includes(k));
  if (unknown.length) throw new InvalidInputError(`configuration: unknown field(s) ${unknown.join(', ')} for a ${type} connector (known: ${known.join(', ')})`);
  for (const [key, value] of Object.entries(config)) {
    if (key === 'headers') {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.values(value).every((v) => typeof v === 'string')) throw new InvalidInputError('configuration.headers must be an object of strings');
    } else if (typeof value !== 'string') throw new InvalidInputError(`configuration.${key} must be a string`);
  }
  const secrets = { ...(previous ?? {}), ...Object.fromEntries(fields.secret.filter((k) => config[k] !== undefined).map((k) => [k, config[k]])) };
  const configuration = Object.fromEntries(fields.public.filter((k) => config[k] !== undefined).map((k) => [k, config[k]]));
  for (const key of fields.required) if (configuration[key] === undefined && secrets[key] === undefined) throw new InvalidInputError(`configuration.${key} is required for a ${type} connector`);
  if (type === 'HTTP' && !isHttpUrl(configuration.url as string)) throw new InvalidInputError('configuration.url must be an http:// or https:// URL');
  if (type === 'S3' && configuration.endpoint !== undefined && !isHttpUrl(configuration.endpoint as string)) throw new InvalidInputError('configuration.endpoint must be an http:// or https:// URL');
  return { configuration, secrets };
}

/** The object key or path of connectorIdForContent: relative, no `.` or `..` segments, no backslashes. */
export function contentKeyOf(value: string | undefined): string {
  const key = (value ?? '').replace(/^\/+/, '');
  if (key === '' || key.includes('\\') || key.split('/').some((s) => s === '.' || s === '..' || s === '')) {
    throw new InvalidInputError('connectorReferenceRequest.connectorIdForContent must be a relative path (no empty, . or .. segments)');
  }
  return key;
}
