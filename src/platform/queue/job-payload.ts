import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import { JobPayloadError, QueueDefinition } from './job-queue';

/**
 * Checks a payload against the queue's check or payloadClass (class-validator) and returns the typed instance the
 * handler receives. Queues with neither take any JSON object as it is.
 */
export async function validatePayload<P extends object>(queue: QueueDefinition<P>, payload: unknown): Promise<P> {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new JobPayloadError(queue.name, ['the payload must be a JSON object']);
  }
  if (queue.check) {
    const problems = queue.check(payload as Record<string, unknown>);
    if (problems.length > 0) throw new JobPayloadError(queue.name, problems);
    return payload as P;
  }
  if (!queue.payloadClass) return payload as P;
  const instance = plainToInstance(queue.payloadClass, payload);
  const errors = await validate(instance, { forbidUnknownValues: true, validationError: { target: false, value: false } });
  if (errors.length > 0) throw new JobPayloadError(queue.name, flatten(errors));
  return instance;
}

/** The stored form of a payload. */
export function serializePayload(queue: QueueDefinition<object>, payload: object): string {
  try {
    return JSON.stringify(payload);
  } catch (err) {
    throw new JobPayloadError(queue.name, [`the payload cannot be stored as JSON (${(err as Error).message})`]);
  }
}

export async function parseStoredPayload<P extends object>(queue: QueueDefinition<P>, stored: string): Promise<P> {
  let plain: unknown;
  try {
    plain = JSON.parse(stored);
  } catch {
    throw new JobPayloadError(queue.name, ['the stored payload is not valid JSON']);
  }
  return validatePayload(queue, plain);
}

function flatten(errors: ValidationError[], path = ''): string[] {
  const problems: string[] = [];
  for (const error of errors) {
    const property = path ? `${path}.${error.property}` : error.property;
    for (const message of Object.values(error.constraints ?? {})) problems.push(property ? `${property}: ${message}` : message);
    if (error.children?.length) problems.push(...flatten(error.children, property));
  }
  return problems.length > 0 ? problems : ['the payload is invalid'];
}
