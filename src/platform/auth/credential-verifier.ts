/**
 * Implemented by the applications module; the auth platform only knows this contract. Both calls are on
 * every request's path, so implementations answer from memory and go to the database only on a miss.
 */
export abstract class CredentialVerifier {
  /** The application and key id when the secret is an active key of that application, else null. */
  abstract verifySecret(appId: string, secret: string): Promise<{ isManagement: boolean; credentialId: string } | null>;

  /** Whether the application still exists (tokens of a deleted application stop working). */
  abstract applicationStatus(appId: string): Promise<{ isManagement: boolean } | null>;
}
