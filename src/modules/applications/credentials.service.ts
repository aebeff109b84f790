import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { KeyRing, newSecret } from '../../platform/crypto/keyring';
import { NotFoundError } from '../../platform/http/domain-errors';
import { newCredentialId } from './application-ids';
import { ApplicationEntity } from './entities/application.entity';
import { CredentialEntity } from './entities/credential.entity';
import { CredentialCache } from './credential-cache';

/** CredentialSchema */
export interface CredentialView {
  id: string;
  name: string;
  credential: string;
  pensCredential: string;
  status: 'active' | 'disabled';
  created: string;
  updated: string;
}

/** Secret keys of applications: several per application; disabling or deleting one takes effect on every node at once. */
@Injectable()
export class CredentialsService {
  constructor(
    @InjectRepository(CredentialEntity) private readonly credentials: Repository<CredentialEntity>,
    @InjectRepository(ApplicationEntity) private readonly apps: Repository<ApplicationEntity>,
    private readonly keys: KeyRing,
    private readonly cache: CredentialCache,
  ) {}

  async list(appId: string): Promise<CredentialView[]> {
    await this.requireApp(appId);
    const rows = await this.credentials.find({ where: { appId }, order: { createdAt: 'ASC', id: 'ASC' } });
    return rows.map((r) => this.view(r));
  }

  async get(appId: string, credentialId: string): Promise<CredentialView> {
    return this.view(await this.requireCredential(appId, credentialId));
  }

  async create(appId: string, input: { name?: string; active?: boolean }, manager?: EntityManager): Promise<CredentialView> {
    if (!manager) await this.requireApp(appId);
    const now = new Date();
    const row = (manager ?? this.credentials.manager).create(CredentialEntity, {
      id: newCredentialId(),
      appId,
      name: input.name ?? 'Secret key',
      secretSealed: this.keys.seal(newSecret()),
      pensSealed: this.keys.seal(newSecret(15)),
      status: input.active === false ? 'disabled' : 'active',
      createdAt: now,
      updatedAt: now,
    });
    await (manager ?? this.credentials.manager).insert(CredentialEntity, row);
    if (!manager) await this.cache.invalidate(appId);
    return this.view(row);
  }

  async update(appId: string, credentialId: string, input: { name?: string; active?: boolean }): Promise<void> {
    const row = await this.requireCredential(appId, credentialId);
    const changes: Partial<CredentialEntity> = { updatedAt: new Date() };
    if (input.name !== undefined) changes.name = input.name;
    if (input.active !== undefined) changes.status = input.active ? 'active' : 'disabled';
    await this.credentials.update({ id: row.id, appId }, changes);
    await this.cache.invalidate(appId);
  }

  async delete(appId: string, credentialId: string): Promise<void> {
    const row = await this.requireCredential(appId, credentialId);
    await this.credentials.delete({ id: row.id, appId });
    await this.cache.invalidate(appId);
  }

  private async requireApp(appId: string): Promise<void> {
    if (!(await this.apps.existsBy({ id: appId }))) throw new NotFoundError('Application', appId);
  }

  private async requireCredential(appId: string, credentialId: string): Promise<CredentialEntity> {
    await this.requireApp(appId);
    const row = await this.credentials.findOneBy({ id: credentialId, appId });
    if (!row) throw new NotFoundError('Credential', credentialId);
    return row;
  }

  private view(row: CredentialEntity): CredentialView {
    return {
      id: row.id,
      name: row.name,
      credential: this.keys.open(row.secretSealed),
      pensCredential: this.keys.open(row.pensSealed),
      status: row.status,
      created: row.createdAt.toISOString(),
      updated: row.updatedAt.toISOString(),
    };
  }
}
