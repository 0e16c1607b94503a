import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { subjects } from '../../bus/index.ts';
import { HostKey } from '../../bus/messages/index.ts';
import { AuditUnavailable, readAuditChecked, recordKind, refusedSummary, unreadableSummary, type AuditRecord } from '../../security/index.ts';
import { CliError } from '../cli-error.ts';
import { jsonLine, oneLine } from '../terminal-text.ts';
import { addNatsFlags, connectClient, type NatsFlagValues } from '../nats-options.ts';
import { endQuietlyWhenReaderCloses, usageErrorsExitTwo } from '../introspect/index.ts';
import { namedKind } from './host.ts';

// `metalfleet audit [--host [KIND/]NS/NAME] [--kind KIND] [--since T] [--json]`: the mf-audit stream, oldest first.
// `--kind`: only records for that kind's object (a BareMetalHost and a MaasMachine may share a
// name); records from before the audit kept a kind cannot be told apart, and are shown for any.
// `--host` takes a host as the lines print it: `maasmachine/NS/NAME` is `--host NS/NAME --kind MaasMachine`.
// Read-only (stream info and message gets), so a NATS user with read rights only can run it.
// Exits 1, after the records it could verify, when messages reaching it were refused (not
// delivered by its own consumer): someone may be trying to rewrite what it shows. Records of the
// stream that are not audit records are skipped with a warning naming their sequence.

interface AuditFlags extends NatsFlagValues {
  host?: string;
  kind?: string;
  since?: string;
  json?: boolean;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`: RFC 3339 (`2026-12-02T08:00:00Z`) or a duration back from now (`90s`, `10m`, `2h`, `7d`). */
export function parseSince(value: string, now: Date): Date {
  const duration = /^(\d{1,9})([smhd])$/.exec(value);
  if (duration) return new Date(now.getTime() - Number(duration[1]) * (UNITS[duration[2] as string] as number));
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(value)) {
    const at = new Date(value);
    if (!Number.isNaN(at.getTime())) return at;
  }
  throw new CliError(`--since ${JSON.stringify(value.slice(0, 60))}: give an RFC 3339 time (2026-12-02T08:00:00Z) or a duration (90s, 10m, 2h, 7d)`, 2);
}

function who(r: AuditRecord): string {
  switch (r.caller.kind) {
    case 'signed': return `${r.caller.name} (${r.caller.role} ${r.caller.signer.slice(0, 12)}...)`;
    case 'unverified': return r.caller.signer ? `unverified key ${r.caller.signer.slice(0, 12)}...` : 'unverified';
    default: return r.caller.kind;
  }
}

/** `--host`: `NS/NAME`, or `KIND/NS/NAME` as the lines print a host command's target (and `metalfleet host` takes it). */
export function hostFilter(arg: string, flagKind: string | undefined): { host: string; kind?: string } {
  const parts = arg.split('/');
  let host = arg;
  let kind = flagKind;
  if (parts.length === 3) {
    const named = namedKind(parts[0] ?? '', `--host ${JSON.stringify(arg)}`);
    if (flagKind !== undefined && flagKind !== named) throw new CliError(`--host ${JSON.stringify(arg)} is a ${named}, but --kind says ${flagKind}: give one`, 2);
    host = parts.slice(1).join('/');
    kind = named;
  }
  const k = HostKey.safeParse(host);
  if (!k.success) throw new CliError(`--host: ${k.error.issues.map((i) => i.message).join('; ')} (or "<kind>/<namespace>/<name>")`, 2);
  return { host, ...(kind === undefined ? {} : { kind }) };
}

/**
 * One line a record: time, node, who, action, host, outcome (and why). Every field is escaped on
 * its own (oneLine): a refused request's requestId or reason is the sender's text, and a newline
 * in it must not print a line that reads like another record.
 */
export function formatRecord(r: AuditRecord): string {
  // A host command: its command; an apply: the object's kind as sent (its command); a delete: the
  // kind it deleted (`delete MaasMachine fleet/host-8`), which a delete of an older node did not keep.
  const what = [r.action, r.action === 'delete' ? r.kind : r.command].filter(Boolean).join(' ');
  const outcome = r.outcome === 'refused' || r.outcome === 'failed' ? `${r.outcome} ${r.code ?? ''}: ${r.reason ?? ''}`.trim() : r.outcome;
  const size = r.size === undefined ? '' : `${r.size} bytes`;
  const sender = r.sender === undefined ? '' : `from ${r.sender}`;
  // A host command's host of another kind than BareMetalHost (the default) as `metalfleet host`
  // takes it: `maasmachine/NS/NAME`. An apply's or a delete's kind is named before it already.
  const kind = recordKind(r);
  const target = r.host === null ? '-' : r.action !== 'command' || kind === undefined || kind === 'BareMetalHost' ? r.host : `${kind.toLowerCase()}/${r.host}`;
  return [r.at, r.node, who(r), what, target, r.requestId ? `request ${r.requestId}` : '', size, outcome, sender].filter(Boolean).map(oneLine).join('  ');
}

export function register(program: Command): void {
  usageErrorsExitTwo(addNatsFlags(
    program
      .command('audit')
      .description(descriptionOf('audit'))
      .option('--host <ns/name>', 'only records about this host; kind/ns/name (maasmachine/fleet/host-7, as the lines print it) for that kind\'s only')
      .option('--kind <kind>', 'only records for this kind (BareMetalHost, MaasMachine, MaasCluster), which may share a name; records from before the audit kept a kind are shown for any')
      .option('--since <time>', 'only records since this time: RFC 3339, or a duration back from now (10m, 2h, 7d)')
      .option('--json', 'one JSON record a line, as stored'),
  )).action(async (flags: AuditFlags) => {
    const flagKind = flags.kind === undefined ? undefined : namedKind(flags.kind, '--kind');
    const target = flags.host === undefined ? undefined : hostFilter(flags.host, flagKind);
    const kind = target ? target.kind : flagKind;
    const since = flags.since === undefined ? undefined : parseSince(flags.since, new Date());
    const transport = await connectClient(flags, process.env, 'metalfleet-audit');
    try {
      const read = await readAuditChecked(transport, subjects(), { ...(target ? { host: target.host } : {}), ...(kind ? { kind } : {}), ...(since ? { since } : {}) });
      // `metalfleet audit | head`: a reader that has what it wanted ends the command quietly.
      endQuietlyWhenReaderCloses();
      for (const r of read.records) process.stdout.write(flags.json ? `${jsonLine(r)}\n` : `${formatRecord(r)}\n`);
      // Records in the stream this reader cannot read are said, not fatal: the others are the audit.
      if (read.unreadable > 0) process.stderr.write(`metalfleet: warning: ${oneLine(unreadableSummary(read))}\n`);
      if (read.refused > 0) throw new CliError(oneLine(refusedSummary(read)));
    } catch (error) {
      if (error instanceof AuditUnavailable) throw new CliError(error.message);
      throw error;
    } finally {
      await transport.close();
    }
  });
}
