import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { KeyRing, newSecret } from '../../platform/crypto/keyring';
import { InvalidInputError, NotFoundError } from '../../platform/http/domain-errors';
import { ListQuery } from '../../platform/http/list-query';
import { PageTokens } from '../../platform/http/page-tokens';
import { XapiCredentialListQueryDto } from './dto/xapi-credential-list-query.dto';
import { XapiCredentialPostDto } from './dto/xapi-credential.dto';
import { XapiAuthType, XapiCredentialEntity, XapiPermissionsLevel } from './entities/xapi-credential.entity';
import { LrsCredentialCache } from './lrs/lrs-credential-cache';

/**
 * XapiCredentialSchema as the generated clients read it: `auth` and `permissionsLevel` are objects
 * (XapiCredentialAuthTypeSchema / XapiCredentialPermissionsLevelSchema); the clients drop a bare string.
 */
export interface XapiCredentialView {
  id: string;
  name: string;
  info?: string;
  secret: string;
  isEnabled: boolean;
  auth: { xapiCredentialAuthType: XapiAuthType };
  permissionsLevel: { xapiCredentialPermissionsLevel: XapiPermissionsLevel };
}

/** The xAPI credentials of applications: keys for activity providers to use the application's LRS. */
@Injectable()
export class XapiCredentialsService {
  private readonly listQuery: ListQuery;

  constructor(
    @InjectRepository(XapiCredentialEntity) private readonly credentials: Repository<XapiCredentialEntity>,
    private readonly keys: KeyRing,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly cache: LrsCredentialCache,
    tokens: PageTokens,
  ) {
    this.listQuery = new ListQuery(tokens, {
      name: 'xapi-credentials',
      pageSize: 100,
      datetimeColumns: { created: 'x.createdAt', updated: 'x.updatedAt' },
      filterColumns: { credential_id: 'x.id', credential_name: 'x.name' },
      orderColumns: { created_asc: 'x.createdAt', created_desc: 'x.createdAt', updated_asc: 'x.updatedAt', updated_desc: 'x.updatedAt' },
      idColumn: 'x.id',
      defaults: { datetimeFilter: 'updated', filterBy: 'credential_id', orderBy: 'updated_asc' },
    });
  }

  async create(appId: string, body: XapiCredentialPostDto): Promise<string> {
    const id = newSecret(15);
    await this.insert(appId, id, body);
    return id;
  }

  /** Edits the credential, or creates it under that id. */
  async set(appId: string, id: string, body: XapiCredentialPostDto): Promise<void> {
    this.checkId(id);
    const row = await this.credentials.findOneBy({ appId, id });
    if (!row) {
      await this.insert(appId, id, body);
      return;
    }
    await this.credentials.update(
      { appId, id },
      {
        name: body.name,
        info: body.info ?? null,
        ...(body.secret ? { secretSealed: this.keys.seal(body.secret) } : {}),
        isEnabled: body.isEnabled,
        auth: body.auth,
        permissionsLevel: body.permissionsLevel,
        updatedAt: new Date(),
      },
    );
    await this.cache.invalidate(appId);
  }

  async get(appId: string, id: string): Promise<XapiCredentialView> {
    return this.view(await this.require(appId, id));
  }

  async list(appId: string, query: XapiCredentialListQueryDto): Promise<{ xapiCredentials: XapiCredentialView[]; more?: string; total?: number }> {
    const resolved = this.listQuery.resolveFilters(appId, query);
    const qb = this.credentials.createQueryBuilder('x').where('x.appId = :appId', { appId });
    const page = await this.listQuery.page(appId, qb, resolved, (row) => [resolved.filters.orderBy.startsWith('created') ? row.createdAt : row.updatedAt, row.id], {
      includeTotalCount: query.includeTotalCount === true && query.more === undefined,
    });
    return { xapiCredentials: page.items.map((r) => this.view(r)), more: page.more, total: page.total };
  }

  async delete(appId: string, id: string): Promise<void> {
    await this.require(appId, id);
    await this.credentials.delete({ appId, id });
    await this.cache.invalidate(appId);
  }

  /** The LRS endpoint of an application, as activity providers are given it. */
  endpoint(appId: string): string {
    return `${this.config.publicUrl}/lrs/${encodeURIComponent(appId)}/`;
  }

  async purgeApplication(appId: string): Promise<void> {
    await this.credentials.delete({ appId });
    await this.cache.invalidate(appId);
  }

  private async insert(appId: string, id: string, body: XapiCredentialPostDto): Promise<void> {
    const now = new Date();
    await this.credentials.insert({
      appId,
      id,
      name: body.name,
      info: body.info ?? null,
      secretSealed: this.keys.seal(body.secret ? body.secret : newSecret()),
      isEnabled: body.isEnabled,
      auth: body.auth,
      permissionsLevel: body.permissionsLevel,
      createdAt: now,
      updatedAt: now,
    });
    // An id tried before it existed is remembered as unknown for a few seconds.
    await this.cache.invalidate(appId);
  }

  private checkId(id: string): void {
    // The id is the user name of HTTP basic authentication: it cannot hold a colon.
    if (id.length === 0 || id.length > 191 || id.includes(':') || /[\s/\\]/.test(id)) {
      throw new InvalidInputError('xapiCredentialId must be 1 to 191 characters without colons, slashes or white space');
    }
  }

  private async require(appId: string, id: string): Promise<XapiCredentialEntity> {
    const row = await this.credentials.findOneBy({ appId, id });
    if (!row) throw new NotFoundError('xAPI credential', id);
    return row;
  }

  private view(row: XapiCredentialEntity): XapiCredentialView {
    return {
      id: row.id,
      name: row.name,
      ...(row.info !== null ? { info: row.info } : {}),
      secret: this.keys.open(row.secretSealed),
      isEnabled: row.isEnabled,
      auth: { xapiCredentialAuthType: row.auth },
      permissionsLevel: { xapiCredentialPermissionsLevel: row.permissionsLevel },
    };
  }
}
