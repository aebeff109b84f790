import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { InvalidInputError } from '../../platform/http/domain-errors';
import { emailKeyOf, emailProblem } from '../invitations/invitation-rules';
import { ApplicationAdminEntity } from './application-admin.entity';

/** Who administers an application: the addresses DeleteAllLearnerData accepts as `userEmail` (set with `lcds apps admins`). */
@Injectable()
export class ApplicationAdminsService {
  constructor(@InjectRepository(ApplicationAdminEntity) private readonly admins: Repository<ApplicationAdminEntity>) {}

  async add(appId: string, email: string): Promise<void> {
    const problem = emailProblem(email);
    if (problem) throw new InvalidInputError(`the administrator's address: ${problem}`);
    await this.admins.createQueryBuilder().insert().values({ appId, emailKey: emailKeyOf(email), email: email.trim(), createdAt: new Date() }).orIgnore().execute();
  }

  async remove(appId: string, email: string): Promise<boolean> {
    const res = await this.admins.delete({ appId, emailKey: emailKeyOf(email) });
    return (res.affected ?? 0) > 0;
  }

  async list(appId: string): Promise<Array<{ email: string; added: string }>> {
    const rows = await this.admins.find({ where: { appId }, order: { emailKey: 'ASC' } });
    return rows.map((r) => ({ email: r.email, added: r.createdAt.toISOString() }));
  }

  async isAdmin(appId: string, email: string): Promise<boolean> {
    return this.admins.existsBy({ appId, emailKey: emailKeyOf(email) });
  }

  async purgeApplication(appId: string): Promise<void> {
    await this.admins.delete({ appId });
  }
}
