import type { CredentialsStatus } from '../../api/index.ts';
import type { CredentialsUsed } from './types.ts';

/** BMO's CredentialsStatus.Match: the same Secret (name, namespace) at the same version. */
export function sameCredentials(recorded: CredentialsStatus | undefined, used: CredentialsUsed): boolean {
  return recorded?.credentials?.name === used.name && recorded.credentials.namespace === used.namespace && (recorded.credentialsVersion ?? '') === used.version;
}
