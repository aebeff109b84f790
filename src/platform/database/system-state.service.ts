import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { SystemStateEntity } from './system-state.entity';

@Injectable()
export class SystemStateService {
  constructor(@InjectRepository(SystemStateEntity) private readonly repo: Repository<SystemStateEntity>) {}

  /**
   * Records a one-time event. Returns true for exactly one caller across every node: the insert of the
   * primary key is the lock, so two nodes booting at once cannot both run the same first-start work.
   */
  async claimOnce(key: string, value: string): Promise<boolean> {
    const token = `${value} ${randomUUID()}`;
    await this.repo.createQueryBuilder().insert().values({ key, value: token, updatedAt: new Date() }).orIgnore().execute();
    // Whoever's value is stored won; reading it back works the same on every driver.
    return (await this.get(key)) === token;
  }

  async get(key: string): Promise<string | null> {
    return (await this.repo.findOneBy({ key }))?.value ?? null;
  }

  /**
   * A value made once per installation and then shared by every node: the first caller's `make()` wins. As stored
   * by claimOnce, "<value> <claim id>"; this answers the value alone (which must hold no space).
   */
  async once(key: string, make: () => string): Promise<string> {
    let stored = await this.get(key);
    if (stored === null) {
      await this.claimOnce(key, make());
      stored = await this.get(key);
    }
    return stored!.split(' ')[0];
  }
}
