// How a node decides who may send it requests, from its settings: on a shared bus (NATS) it
// must be told — an allow-list, or an explicit "take unsigned" — because the default of old
// (anyone on the bus may power off or delete any host) is the hole this module closes.
import type { Subjects } from '../bus/index.ts';
import type { Logger, Transport } from '../ports/index.ts';
import type { AuthorizedKeys } from './authorized-keys.ts';
import { noAudit, openAuditLog, type AuditLog } from './audit-log.ts';
import { openNonceLedger } from './nonce-ledger.ts';
import { DEFAULT_FRESHNESS_MS, signedGuard, trustedGuard, unsignedGuard, type RequestGuard } from './request-guard.ts';
import { MetalfleetError } from '../api/index.ts';

export interface PostureSettings {
  readonly authorizedKeys?: AuthorizedKeys | undefined;
  readonly allowUnsigned?: boolean | undefined;
  readonly freshnessMs?: number | undefined;
}

/** A node on a shared bus was given neither an allow-list nor --allow-unsigned-commands. */
export class UnsafeStart extends MetalfleetError {
  constructor() {
    super('unsafeStart', 'this node would take host commands and store changes from any NATS client: give --authorized-keys FILE (the keys allowed to send them; see "metalfleet keygen"), or --allow-unsigned-commands to accept that explicitly', false);
    this.name = 'UnsafeStart';
  }
}

export interface Posture {
  readonly guard: RequestGuard;
  readonly audit: AuditLog;
}

/** Throws UnsafeStart before anything is opened when a shared node has no posture. */
export function checkPosture(shared: boolean, settings: PostureSettings | undefined): void {
  if (shared && !settings?.authorizedKeys && !settings?.allowUnsigned) throw new UnsafeStart();
}

export async function openPosture(transport: Transport, shared: boolean, settings: PostureSettings | undefined, subjects: Subjects, log: Logger, replicas: number): Promise<Posture> {
  checkPosture(shared, settings);
  if (!shared) return { guard: trustedGuard(), audit: noAudit };
  const audit = await openAuditLog(transport, subjects, log, { replicas });
  const keys = settings?.authorizedKeys;
  if (!keys) {
    log.warn({ component: 'security' }, 'unsigned commands allowed (--allow-unsigned-commands): any NATS client may send host commands and store changes; they are audited as unsigned');
    return { guard: unsignedGuard(), audit };
  }
  const windowMs = settings.freshnessMs ?? DEFAULT_FRESHNESS_MS;
  const nonces = await openNonceLedger(transport, windowMs, replicas);
  const operators = [...keys.values()].filter((k) => k.role === 'operator').length;
  if (settings.allowUnsigned) {
    // A migration: signed requests are checked in full, and unsigned ones are taken all the same.
    log.warn({ component: 'security', keys: keys.size, operators, allowUnsigned: true }, 'unsigned commands allowed beside signed ones (--allow-unsigned-commands with --authorized-keys): any NATS client may send host commands and store changes unsigned; they are audited as unsigned. Drop --allow-unsigned-commands once every sender signs');
  } else {
    log.info({ component: 'security', keys: keys.size, operators, allowUnsigned: false }, 'signed requests required');
  }
  // The shipped allow-list is a comment only: such a node refuses everything, which must not pass as info.
  if (operators === 0 && !settings.allowUnsigned) {
    log.warn({ component: 'security', keys: keys.size }, 'no operator key in --authorized-keys: every host command, apply and delete will be refused; add a line "operator <public key> <name>" (see "metalfleet keygen") to the file on every node');
  }
  return { guard: signedGuard({ keys, nonces, allowUnsigned: Boolean(settings.allowUnsigned), freshnessMs: windowMs }), audit };
}
