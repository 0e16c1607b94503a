import { forbidden, validationError } from '../http/api-error.ts';
import type { MachineRecord } from './machine.ts';
import type { SimUser } from '../http/oauth.ts';
import type { Params } from '../http/params.ts';
import { parseStringBool } from '../http/params.ts';

// Who may do what to a machine (NodePermission in models/node.py), and reading boolean options.

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

// NodePermission.view on a machine (auth/local.py _can_view, RBAC off): unowned, the user's own, or
// any to an admin. Listings (NodeManager.get_nodes) leave the others out; a read of one
// (get_node_or_404) is PermissionDenied, a 403 with no text, while an unknown system_id stays 404.
export function canView(user: SimUser, m: MachineRecord): boolean {
  return user.admin || m.owner === null || m.owner === user.name;
}

export function checkView(user: SimUser, m: MachineRecord): void {
  if (!canView(user, m)) throw forbidden();
}

// NodePermission.edit: a non-admin may act on unowned machines and their own, not on others'; a
// locked machine refuses everyone.
export function checkEdit(user: SimUser, m: MachineRecord): void {
  if (m.locked) throw forbidden();
  if (!user.admin && m.owner !== null && m.owner !== user.name) throw forbidden();
}

// NodePermission.admin: admins only, and not on a locked machine.
export function checkAdmin(user: SimUser, m: MachineRecord): void {
  if (!user.admin || m.locked) throw forbidden();
}

export function readBool(body: Params, key: string): boolean | undefined {
  const text = body.get(key);
  if (text === undefined) return undefined;
  const value = parseStringBool(text);
  if (value === undefined) throw validationError({ [key]: ["Value should be 'true' or 'false'"] });
  return value;
}

