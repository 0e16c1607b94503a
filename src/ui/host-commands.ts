// The commands a host was sent, from the cluster's audit (the mf-audit stream `metalfleet audit
// --host` reads): who, when, what, and whether it was taken. Asked only when a host page opens or
// sends a command, as each read makes a short-lived JetStream consumer. Only the commands for the
// page's kind: a BareMetalHost and a MaasMachine may share a name (records from before the audit
// kept a kind cannot be told apart, and show on both pages).
import { subjects } from '../bus/index.ts';
import { AuditUnavailable, readAudit } from '../security/index.ts';
import { BusError, type Transport } from '../ports/index.ts';

export interface CommandLine {
  readonly at: string;
  readonly command: string | null;
  readonly outcome: string;
  /** The operator's allow-list name, or how the request came (unsigned, unverified key). */
  readonly by: string;
  readonly node: string;
  readonly reason: string | null;
}

export type CommandsOutcome =
  | { readonly ok: true; readonly commands: readonly CommandLine[] }
  | { readonly ok: false; readonly reason: string };

/** The newest records shown: a page, not the whole history (`metalfleet audit --host` has it). */
const SHOWN = 20;

/** `kind`: the page's object (none: every kind of that name). */
export async function recentCommands(transport: Transport, host: string, timeoutMs: number, kind?: string): Promise<CommandsOutcome> {
  try {
    const records = await readAudit(transport, subjects(), { host, timeoutMs, ...(kind === undefined ? {} : { kind }) });
    const commands = records.filter((r) => r.action === 'command').slice(-SHOWN).reverse().map((r) => ({
      at: r.at,
      command: r.command,
      outcome: r.outcome,
      by: r.caller.kind === 'signed' ? `${r.caller.name} (${r.caller.role})` : r.caller.kind,
      node: r.node,
      reason: r.reason,
    }));
    return { ok: true, commands };
  } catch (err) {
    // The embedded mode keeps no audit stream (no JetStream on its memory bus).
    const noJetStream = (e: unknown): boolean => e instanceof BusError && e.kind === 'noResponders';
    if (noJetStream(err) || (err instanceof AuditUnavailable && noJetStream(err.cause))) return { ok: false, reason: 'no command audit here: the embedded mode keeps none (a NATS cluster records every command in mf-audit)' };
    if (err instanceof AuditUnavailable || err instanceof BusError) return { ok: false, reason: err.message };
    throw err;
  }
}
