import { applyDecorators, CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata, UseInterceptors } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { mergeMap, Observable } from 'rxjs';
import type { AuthenticatedRequest, Principal } from '../auth/principal';
import { AuditLog } from './audit-log.service';

const AUDIT_SPEC = 'lcds:audit';

/** What an audited operation records besides its name, the caller and the route's ids. */
export interface AuditSpec {
  /** The operation's name in the log (its operationId). */
  action: string;
  /** The route parameter naming the application the change concerns (management operations); else the caller's. */
  appParam?: string;
  /** The application the change concerns, from the response (CreateApplication). */
  appFromResult?: (result: unknown) => unknown;
  /** The id of what the operation created, from its response, recorded as this target. */
  created?: { target: string; id: (result: unknown) => unknown };
  /** Route parameters left out of the targets (an erased learner's id: the erasure removes it from the log too). */
  omitParams?: string[];
  /** Query parameters recorded as targets (ids or levels, never values that were set). */
  query?: string[];
  /** Body fields recorded as targets: ids and addresses the operation is about, never values it stores. */
  bodyTargets?: string[];
  /** The names of the fields the request sets; by default the body's keys, nested ones dotted (`source.url`). */
  fields?: (body: unknown) => string[];
}

/**
 * Records a successful call of the operation in the audit log (platform/audit): who (the application, the key or
 * token id, the client's address), what (the action, the ids in its route, the names of the fields it set), when.
 * Values that were sent are never recorded, so secrets cannot reach the log.
 */
export const Audited = (spec: AuditSpec) => applyDecorators(SetMetadata(AUDIT_SPEC, spec), UseInterceptors(AuditInterceptor));

/** The body's field names, one level of nesting dotted; arrays count as one field. */
export function bodyFieldNames(body: unknown, prefix = '', depth = 0): string[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return prefix ? [prefix] : [];
  const names: string[] = [];
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (value === undefined) continue;
    const name = prefix ? `${prefix}.${key}` : key;
    if (depth < 1 && value && typeof value === 'object' && !Array.isArray(value)) names.push(...bodyFieldNames(value, name, depth + 1));
    else names.push(name);
  }
  return names;
}

const idText = (value: unknown): string | undefined => (typeof value === 'string' || typeof value === 'number' ? String(value) : undefined);

@Injectable()
export class AuditInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly log: AuditLog,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const spec = this.reflector.get<AuditSpec | undefined>(AUDIT_SPEC, context.getHandler());
    if (!spec) return next.handle();
    const req = context.switchToHttp().getRequest<Request>();
    return next.handle().pipe(
      mergeMap(async (result: unknown) => {
        await this.record(spec, req, result);
        return result;
      }),
    );
  }

  private record(spec: AuditSpec, req: Request, result: unknown): Promise<void> {
    const principal = (req as AuthenticatedRequest).user as Principal;
    const params = (req.params ?? {}) as Record<string, string>;
    const targets: Record<string, string> = { ...params };
    for (const name of spec.omitParams ?? []) delete targets[name];
    for (const name of spec.query ?? []) {
      const value = idText((req.query as Record<string, unknown>)[name]);
      if (value !== undefined) targets[name] = value;
    }
    for (const name of spec.bodyTargets ?? []) {
      const value = idText((req.body as Record<string, unknown> | undefined)?.[name]);
      if (value !== undefined) targets[name] = value;
    }
    const created = spec.created ? idText(spec.created.id(result)) : undefined;
    if (spec.created && created !== undefined) targets[spec.created.target] = created;
    const appId = idText(spec.appFromResult?.(result)) ?? (spec.appParam ? params[spec.appParam] : undefined) ?? principal.appId;
    return this.log.record({
      appId,
      action: spec.action,
      actor: { kind: principal.via, appId: principal.appId, credentialId: principal.credentialId, source: req.ip ?? req.socket.remoteAddress ?? null },
      targets,
      fields: (spec.fields ?? bodyFieldNames)(req.body),
    });
  }
}
