import type { ViewerClaim } from './token.service';

/** Who made the call. Every service method that touches customer data takes the appId from here. */
export interface Principal {
  appId: string;
  isManagement: boolean;
  via: 'basic' | 'bearer';
  /** Secret key id for basic, token id for bearer. */
  credentialId: string;
  /** Bearer only. */
  scopes?: string[];
  /** A report viewer link's token: what the viewer may show (the reporting module enforces it). */
  viewer?: ViewerClaim;
}

/** A request ApiAuthGuard authenticated: it sets `user` to the caller. */
export interface AuthenticatedRequest {
  user?: Principal;
}
