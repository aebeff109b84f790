import { leanRead } from '../../platform/database/lean-read';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { InvalidInputError, NotFoundError } from '../../platform/http/domain-errors';
import { ListQuery } from '../../platform/http/list-query';
import { PageTokens } from '../../platform/http/page-tokens';
import { ClusterCache } from '../../platform/redis/cluster-cache';
import { ClusterEvents } from '../../platform/redis/cluster-events.service';
import { RedisService } from '../../platform/redis/redis.service';
import { newApplicationId } from './application-ids';
import { ApplicationHooks } from './application-hooks';
import { CredentialCache } from './credential-cache';
import { CredentialsService, CredentialView } from './credentials.service';
import { ApplicationListQueryDto } from './dto/application-list-query.dto';
import { ApplicationEntity } from './entities/application.entity';

/** ApplicationInfoSchema */
export interface ApplicationInfoView {
  id: string;
  name: string;
  createDate: string;
  updateDate: string;
  allowDelete: boolean;
  courseCount?: number;
  registrationCount?: number;
}

/** What an application's account holds beyond its name: GetAccountInfo reports it, the CLI and the console set it. */
export interface AccountSettings {
  regLimit?: number | null;
  strictLimit?: boolean;
  email?: string | null;
  company?: string | null;
}

/** ClusterEvents channel: an application's row changed (message: its id). */
const APPLICATION_ROWS_CHANNEL = 'application-rows-changed';

/** What a registration's creation checks of its application's account. */
export interface RegistrationLimit {
  regLimit: number | null;
  strictLimit: boolean;
}

@Injectable()
export class ApplicationsService {
  private readonly listQuery: ListQuery;
  /**
   * Registration limits read lately, production stack only (see registrationLimit): every registration's creation
   * checks one, and a dispatch's or an invitation's first launch is a creation.
   */
  private readonly limits: ClusterCache<RegistrationLimit> | null;

  constructor(
    @InjectRepository(ApplicationEntity) private readonly apps: Repository<ApplicationEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly credentials: CredentialsService,
    private readonly cache: CredentialCache,
    private readonly hooks: ApplicationHooks,
    tokens: PageTokens,
    clusterEvents: ClusterEvents,
    redis: RedisService,
  ) {
    this.limits = redis.enabled ? new ClusterCache<RegistrationLimit>(clusterEvents, APPLICATION_ROWS_CHANNEL, { ttlMs: 60_000, max: 10_000, copy: (l) => ({ ...l }) }) : null;
    this.listQuery = new ListQuery(tokens, {
      name: 'applications',
      pageSize: 100,
      datetimeColumns: { created: 'a.createdAt', updated: 'a.updatedAt' },
      filterColumns: { app_id: 'a.id', app_name: 'a.name' },
      orderColumns: {
        created_asc: 'a.createdAt',
        created_desc: 'a.createdAt',
        updated_asc: 'a.updatedAt',
        updated_desc: 'a.updatedAt',
        app_name_asc: 'a.name',
        app_name_desc: 'a.name',
      },
      idColumn: 'a.id',
      defaults: { datetimeFilter: 'updated', filterBy: 'app_id', orderBy: 'updated_asc' },
    });
  }

  /** Creates an application with its first secret key, in one transaction. */
  async create(input: { name: string; isManagement?: boolean }): Promise<{ app: ApplicationEntity; credential: CredentialView }> {
    const now = new Date();
    return this.dataSource.transaction(async (manager) => {
      const app = manager.create(ApplicationEntity, {
        id: newApplicationId(),
        name: input.name,
        isManagement: input.isManagement ?? false,
        allowDelete: true,
        createdAt: now,
        updatedAt: now,
      });
      await manager.insert(ApplicationEntity, app);
      const credential = await this.credentials.create(app.id, { name: 'Default secret key' }, manager);
      return { app, credential };
    });
  }

  /** GetApplications: paged, filtered; the caller's principal appId binds the `more` token. */
  async list(callerAppId: string, query: ApplicationListQueryDto) {
    const resolved = this.listQuery.resolveFilters(callerAppId, {
      ...query,
      extra: { includeCourseCount: query.includeCourseCount === true, includeRegistrationCount: query.includeRegistrationCount === true },
    });
    const page = await this.listQuery.page(
      callerAppId,
      this.apps.createQueryBuilder('a'),
      resolved,
      (row) => [sortValue(row, resolved.filters.orderBy), row.id],
      { includeTotalCount: query.includeTotalCount === true && query.more === undefined },
    );
    // Include flags given on the first call hold for the pages fetched with `more`, like the filters.
    const applications = await this.describe(page.items, {
      includeCourseCount: query.includeCourseCount === true || resolved.filters.includeCourseCount === true,
      includeRegistrationCount: query.includeRegistrationCount === true || resolved.filters.includeRegistrationCount === true,
    });
    return { applications, more: page.more, total: page.total };
  }

  /** GetApplicationList (deprecated): every application, id and name only. */
  async listAll(): Promise<Array<{ id: string; name: string }>> {
    const rows = await this.apps.find({ select: { id: true, name: true }, order: { createdAt: 'ASC', id: 'ASC' } });
    return rows.map((r) => ({ id: r.id, name: r.name }));
  }

  async listEntities(): Promise<ApplicationEntity[]> {
    return this.apps.find({ order: { createdAt: 'ASC', id: 'ASC' } });
  }

  async count(): Promise<number> {
    return this.apps.count();
  }

  async info(appId: string, options: { includeCourseCount?: boolean; includeRegistrationCount?: boolean }): Promise<ApplicationInfoView> {
    const [view] = await this.describe([await this.require(appId)], options);
    return view;
  }

  async update(appId: string, input: { name?: string; allowDelete?: boolean }): Promise<void> {
    await this.require(appId);
    await this.apps.update({ id: appId }, { ...input, updatedAt: new Date() });
    await this.limits?.invalidate(appId);
  }

  async delete(appId: string, callerAppId: string): Promise<void> {
    const app = await this.require(appId);
    if (appId === callerAppId) throw new InvalidInputError('An application cannot delete itself');
    if (!app.allowDelete) {
      throw new InvalidInputError(`Application '${appId}' does not allow deletion; set allowDelete to true first`);
    }
    await this.hooks.purge(appId);
    await this.apps.delete({ id: appId });
    await this.cache.invalidate(appId);
    await this.limits?.invalidate(appId);
  }

  /** The application's row: its account settings (registration limit, contact details) with its dates. */
  async account(appId: string): Promise<ApplicationEntity> {
    return this.require(appId);
  }

  /** Sets the registration limit and contact details; fields left undefined keep their value, null clears. */
  async updateAccount(appId: string, input: AccountSettings): Promise<void> {
    await this.require(appId);
    if (input.regLimit !== undefined && input.regLimit !== null && (!Number.isInteger(input.regLimit) || input.regLimit < 0)) {
      throw new InvalidInputError('regLimit must be a whole number of registrations, 0 or more');
    }
    const changes: Partial<ApplicationEntity> = {};
    if (input.regLimit !== undefined) changes.regLimit = input.regLimit;
    if (input.strictLimit !== undefined) changes.strictLimit = input.strictLimit;
    if (input.email !== undefined) changes.contactEmail = input.email;
    if (input.company !== undefined) changes.contactCompany = input.company;
    await this.apps.update({ id: appId }, { ...changes, updatedAt: new Date() });
    await this.limits?.invalidate(appId);
  }

  /**
   * The application's registration limit, as a creation checks it. On the production stack from memory (ClusterCache:
   * a change drops it on every node, the CLI's too, which publishes on the same Redis); on the embedded stack read
   * each time: the CLI is another process, which the server's in-process events do not reach, and a read of SQLite
   * costs microseconds.
   */
  async registrationLimit(appId: string): Promise<RegistrationLimit> {
    const read = async () => {
      const app = await this.require(appId);
      return { regLimit: app.regLimit, strictLimit: app.strictLimit };
    };
    return this.limits ? ((await this.limits.get(appId, appId, read)) as RegistrationLimit) : read();
  }

  private async require(appId: string): Promise<ApplicationEntity> {
    const app = await leanRead(this.apps, ['id']).one({ id: appId });
    if (!app) throw new NotFoundError('Application', appId);
    return app;
  }

  private async describe(
    rows: ApplicationEntity[],
    options: { includeCourseCount?: boolean; includeRegistrationCount?: boolean },
  ): Promise<ApplicationInfoView[]> {
    const ids = rows.map((r) => r.id);
    const courses = options.includeCourseCount ? await this.hooks.count('course', ids) : null;
    const registrations = options.includeRegistrationCount ? await this.hooks.count('registration', ids) : null;
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      createDate: r.createdAt.toISOString(),
      updateDate: r.updatedAt.toISOString(),
      allowDelete: r.allowDelete,
      ...(courses ? { courseCount: courses.get(r.id) ?? 0 } : {}),
      ...(registrations ? { registrationCount: registrations.get(r.id) ?? 0 } : {}),
    }));
  }
}

function sortValue(row: ApplicationEntity, orderBy: string): Date | string {
  if (orderBy.startsWith('created')) return row.createdAt;
  if (orderBy.startsWith('updated')) return row.updatedAt;
  return row.name;
}
