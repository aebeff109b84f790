import { Injectable, NotImplementedException } from '@nestjs/common';

export interface LaunchLinkRequest {
  appId: string;
  registrationId: string;
  instance: number;
  expirySeconds: number;
  redirectOnExitUrl: string;
  tracking: boolean;
  startSco?: string;
  culture?: string;
  cssUrl?: string;
}

type Issuer = (request: LaunchLinkRequest) => Promise<string>;

/** The player registers how launch links are made (it depends on registrations, not the other way round). */
@Injectable()
export class LaunchLinks {
  private issuer: Issuer | null = null;

  register(issuer: Issuer): void {
    this.issuer = issuer;
  }

  async issue(request: LaunchLinkRequest): Promise<string> {
    if (!this.issuer) throw new NotImplementedException('Launch links need the player, which is not loaded');
    return this.issuer(request);
  }
}
