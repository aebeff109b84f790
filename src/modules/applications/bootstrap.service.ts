import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { SystemStateService } from '../../platform/database/system-state.service';
import { ApplicationsService } from './applications.service';

export interface FirstStartCredentials {
  management: { appId: string; secretKey: string };
  application: { appId: string; secretKey: string };
}

/**
 * First start: an empty installation gets one management application and one normal application, and their
 * secret keys are shown once. Claimed through a row in system_state so that only one of several nodes
 * starting together does it.
 */
@Injectable()
export class BootstrapService {
  private readonly logger = new Logger(BootstrapService.name);

  constructor(
    private readonly applications: ApplicationsService,
    private readonly state: SystemStateService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async runFirstStart(): Promise<FirstStartCredentials | null> {
    if (!this.config.bootstrap) return null;
    if ((await this.applications.count()) > 0) return null;
    if (!(await this.state.claimOnce('first-start', new Date().toISOString()))) return null;
    const management = await this.applications.create({ name: 'Management', isManagement: true });
    const application = await this.applications.create({ name: 'Default application' });
    this.logger.log({ msg: 'first start: created a management application and a default application', managementAppId: management.app.id, appId: application.app.id });
    return {
      management: { appId: management.app.id, secretKey: management.credential.credential },
      application: { appId: application.app.id, secretKey: application.credential.credential },
    };
  }
}
