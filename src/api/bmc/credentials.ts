import type { BmcCredentials } from './types.ts';

/**
 * BMO's `Credentials.Validate`: both keys are required once trimmed. The message names the
 * missing key, never a value.
 */
export function validateBmcCredentials(credentials: Partial<BmcCredentials>): string | null {
  if (!credentials.username) return "Validation error with BMC credentials: Missing BMC connection detail 'username' in credentials";
  if (!credentials.password) return "Validation error with BMC credentials: Missing BMC connection details 'password' in credentials";
  return null;
}
