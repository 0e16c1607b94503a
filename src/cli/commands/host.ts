import { randomUUID } from 'node:crypto';
import { Option, type Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { shardOf } from '../../api/index.ts';
import { RemoteError, subjects } from '../../bus/index.ts';
import { HostCommand, HostKey, type HostCommandInput, type HostCommandType } from '../../bus/messages/index.ts';
import { sendCommand } from '../../cluster/command-client.ts';
import { announcedShardCount, listNodes } from '../../cluster/introspect/index.ts';
import { BusError, type Transport } from '../../ports/index.ts';
import { CliError } from '../cli-error.ts';
import { KINDS, kindCalled, kindNamed, knownKindNames } from '../../machines/kinds.ts';
import { intFlag, readEnv, shardsFlag } from '../config.ts';
import { didYouMean } from '../did-you-mean.ts';
import { endQuietlyWhenReaderCloses, formatFrom, renderData, usageErrorsExitTwo, type OutputFormat } from '../introspect/index.ts';
import { addNatsFlags, addSigningKeyFlag, connectClient, signingKeyFrom, type NatsFlagValues } from '../nats-options.ts';
import type { SigningKey } from '../../security/index.ts';
import type { Output } from './apply.ts';
import { answered, failed, type HostResult } from './host-result.ts';

// `metalfleet host ACTION NS/NAME...`: a host command (src/bus/messages/command.ts) for each host,
// sent to the owner of its shard and retried while the shard moves. A reply means the intent is
// recorded, not that the host got there: its status says that. Exit 1 if any host failed, 2 for
// a usage mistake (found before anything is sent). --json / -o json|yaml print a record per host
// (host-result.ts) on stdout instead of the lines; a failed host's line still goes to stderr.

export const HOST_ACTIONS = {
  'power-on': 'powerOn',
  'power-off': 'powerOff',
  reboot: 'reboot',
  inspect: 'inspect',
  reprovision: 'reprovision',
  // A provisioned BareMetalHost reboots to apply the firmware changes its HostUpdatePolicy allows.
  service: 'service',
  pause: 'pause',
  unpause: 'unpause',
  detach: 'detach',
  attach: 'attach',
  delete: 'delete',
  // MaasMachines only (as power-on, power-off, pause and unpause also are).
  release: 'release',
} as const satisfies Record<string, HostCommandType>;
export type HostAction = keyof typeof HOST_ACTIONS;

interface HostFlags extends NatsFlagValues {
  json?: boolean;
  output?: string;
  kind?: string;
  mode?: string;
  requestId?: string;
  reason?: string;
  shards?: number;
  timeout: number;
  signingKey?: string;
}

// One attempt waits at most this long: a request lost with a node that is going away is retried
// on the next owner well within the overall --timeout.
const ATTEMPT_MS = 2_000;

function isAction(value: string): value is HostAction {
  return Object.hasOwn(HOST_ACTIONS, value);
}

/** The kind a user names (`MaasMachine`, `maasmachine`, `bmh`), as its manifests spell it; a CliError (exit 2) names the kinds. */
export function namedKind(name: string, where: string): string {
  // A companion kind (HostFirmwareSettings...) has no actor of its own to command or inspect: its host has.
  const kind = kindCalled(name);
  if (!kind || !kindNamed(kind.kind)) {
    const companion = kind ? `${kind.kind} is kept by its host's actor, so name the host instead; ` : '';
    const guess = kind ? '' : didYouMean(name, actorKindWords());
    throw new CliError(`${where}: unknown kind ${JSON.stringify(name)}: ${companion}the kinds are ${knownKindNames({ actorsOnly: true })}${guess}`, 2);
  }
  return kind.kind;
}

/** Every name of a kind that has actors, for a suggestion: `MaasMachine` for `maasmachin`, `bmh` for `bmhh`. */
function actorKindWords(): string[] {
  return KINDS.flatMap((k) => [k.kind, k.resources[0].plural, ...(k.resources[0].shortNames ?? [])]);
}

// `NS/NAME`, or `KIND/NS/NAME` as kubectl's `TYPE/NAME`; the kind from the argument, else --kind.
// `inspect` reads its argument the same way.
export function targetOf(arg: string, flagKind: string | undefined): { key: string; kind?: string } {
  const parts = arg.split('/');
  if (parts.length !== 3) return { key: arg, ...(flagKind !== undefined ? { kind: flagKind } : {}) };
  const kind = namedKind(parts[0] ?? '', `host ${JSON.stringify(arg)}`);
  if (flagKind !== undefined && flagKind !== kind) throw new CliError(`host ${JSON.stringify(arg)} is a ${kind}, but --kind says ${flagKind}: give one`, 2);
  return { key: parts.slice(1).join('/'), kind };
}

/** The commands to send, checked against the wire schema; a CliError (exit 2) names what is wrong. */
export function buildHostCommands(action: string, keys: readonly string[], flags: Pick<HostFlags, 'kind' | 'mode' | 'requestId' | 'reason'>): HostCommand[] {
  if (!isAction(action)) {
    throw new CliError(`unknown action ${JSON.stringify(action)}: use one of ${Object.keys(HOST_ACTIONS).join(', ')}${didYouMean(action, Object.keys(HOST_ACTIONS))}`, 2);
  }
  if (keys.length === 0) throw new CliError(`no host given: "metalfleet host ${action} NAMESPACE/NAME..."`, 2);
  const type = HOST_ACTIONS[action];
  if (flags.mode !== undefined && type !== 'reboot') throw new CliError(`--mode applies to reboot only, not to ${action}`, 2);
  const flagKind = flags.kind === undefined ? undefined : namedKind(flags.kind, '--kind');
  return keys.map((arg) => {
    const { key, kind } = targetOf(arg, flagKind);
    const k = HostKey.safeParse(key);
    if (!k.success) throw new CliError(`host ${JSON.stringify(arg)}: ${k.error.issues.map((i) => i.message).join('; ')}`, 2);
    const input: HostCommandInput = {
      type,
      host: key,
      // No kind: the node's default (a BareMetalHost; a MaasMachine for release), as before kinds.
      ...(kind !== undefined ? { kind } : {}),
      ...(flags.requestId !== undefined ? { requestId: flags.requestId } : {}),
      ...(flags.reason !== undefined ? { reason: flags.reason } : {}),
      ...(flags.mode !== undefined ? { mode: flags.mode } : {}),
    } as HostCommandInput;
    const parsed = HostCommand.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const flag = ({ requestId: '--request-id', reason: '--reason', mode: '--mode', host: 'host' } as Record<string, string>)[String(issue?.path[0])] ?? String(issue?.path.join('.'));
      throw new CliError(`${flag}: ${issue?.message ?? 'invalid'}${givenValue(input, issue?.path[0])}`, 2);
    }
    return parsed.data;
  });
}

// The value as given, so a typo shows beside the rule it broke; long values (a --reason) are cut.
function givenValue(input: HostCommandInput, field: PropertyKey | undefined): string {
  const value: unknown = typeof field === 'string' ? (input as Record<string, unknown>)[field] : undefined;
  if (typeof value !== 'string') return '';
  return ` (got ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
}

/** One host's answer: its text line and the record --json prints. */
export type Outcome = { ok: boolean; line: string; result: HostResult };

const ACTION_OF: Readonly<Record<HostCommandType, HostAction>> = Object.fromEntries(
  Object.entries(HOST_ACTIONS).map(([action, type]) => [type, action]),
) as Record<HostCommandType, HostAction>;

// As the user named it: `maasmachine/NS/NAME` when a kind was given (a BareMetalHost may share the name).
const shown = (cmd: HostCommand): string => (cmd.kind === undefined ? cmd.host : `${cmd.kind.toLowerCase()}/${cmd.host}`);

async function sendOne(transport: Transport, command: HostCommand, shardCount: number, deadlineMs: number, signingKey: SigningKey | undefined): Promise<Outcome> {
  // The id sendCommand would make, made here so the record can name it: a retry with it after a
  // retryable error is not done twice.
  const cmd = { ...command, requestId: command.requestId ?? `mf-${randomUUID()}` };
  const action = ACTION_OF[cmd.type];
  try {
    const reply = await sendCommand(transport, cmd, { shardCount, timeoutMs: Math.min(ATTEMPT_MS, deadlineMs), deadlineMs, signingKey });
    const state = reply.state === '' ? 'none' : reply.state;
    // Not applied: the node says why (already pending, nothing to do, a retry of a request taken)
    // and what still holds (a paused host's power change waits for unpause). "already requested"
    // alone told an attach of an attached host, or an unpause of one not paused, that one was pending.
    return { ok: true, line: `${shown(cmd)}: ${reply.message} (state ${state})`, result: answered(cmd, action, reply) };
  } catch (error) {
    if (error instanceof RemoteError) {
      const hint = error.kind === 'unauthorized' && !signingKey ? 'no --signing-key given, nor METALFLEET_SIGNING_KEY_FILE' : null;
      return {
        ok: false,
        line: `${shown(cmd)}: error ${error.kind}: ${error.message}${hint === null ? '' : ` (${hint})`}`,
        result: failed(cmd, action, { type: error.kind, message: error.message, retryable: error.retryable, hint }),
      };
    }
    if (error instanceof BusError) {
      const subject = subjects().command(shardOf(cmd.host, shardCount));
      const hint = error.kind === 'noResponders' || error.kind === 'timeout'
        ? `no node answered on ${subject} within ${deadlineMs / 1_000} s: is a metalfleet node running, with --shards ${shardCount}?`
        : null;
      return {
        ok: false,
        line: `${shown(cmd)}: error ${error.kind}: ${error.message}${hint === null ? '' : `; ${hint}`}`,
        result: failed(cmd, action, { type: error.kind, message: error.message, retryable: error.retryable, hint }),
      };
    }
    throw error;
  }
}

/** Sends the commands over any transport (NATS, or an embedded node's memory bus): one outcome per host, in the order given. Signed when a key is given. */
export function sendHostCommands(transport: Transport, cmds: readonly HostCommand[], shardCount: number, deadlineMs: number, signingKey?: SigningKey): Promise<Outcome[]> {
  // All at once (each host has its own deadline).
  return Promise.all(cmds.map((cmd) => sendOne(transport, cmd, shardCount, deadlineMs, signingKey)));
}

/**
 * The outcomes as the format asks: the lines (a failed host's on stderr), or the records as one
 * JSON or YAML document on stdout with the failed hosts' lines on stderr as well.
 */
export function printOutcomes(outcomes: readonly Outcome[], format: OutputFormat, io: Output): void {
  const document = renderData({ hosts: outcomes.map((o) => o.result) }, format);
  if (document !== null) io.out(document.replace(/\n$/, ''));
  for (const o of outcomes) {
    if (!o.ok) io.err(o.line);
    else if (document === null) io.out(o.line);
  }
}

/**
 * The shard count the nodes announce in their heartbeats, as `inspect` reads it; else `given`
 * (--shards or METALFLEET_SHARDS). A node refuses a command sent on another count's subject, so
 * a cluster run with --shards 16 refused every command of a `host` not told --shards 16.
 */
async function clusterShardCount(transport: Transport, given: number): Promise<number> {
  try {
    return announcedShardCount(await listNodes(transport)) ?? given;
  } catch {
    // Membership unreadable (no JetStream, no right to read it): the count given is all there is.
    return given;
  }
}

export async function runHostCommands(cmds: readonly HostCommand[], flags: NatsFlagValues & { signingKey?: string }, shardCount: number, deadlineMs: number, io: Output, format: OutputFormat = 'table'): Promise<boolean> {
  const signingKey = await signingKeyFrom(flags, process.env);
  const transport = await connectClient(flags, process.env, 'metalfleet-host');
  try {
    const outcomes = await sendHostCommands(transport, cmds, await clusterShardCount(transport, shardCount), deadlineMs, signingKey);
    printOutcomes(outcomes, format, io);
    return outcomes.every((o) => o.ok);
  } finally {
    await transport.close();
  }
}

export function register(program: Command): void {
  usageErrorsExitTwo(addSigningKeyFlag(addNatsFlags(
    program
      .command('host')
      // `cmd` is the name the introspection CLI lists it under (metalfleet cmd ACTION HOST...).
      .alias('cmd')
      .description(descriptionOf('host'))
      .argument('<action>', Object.keys(HOST_ACTIONS).join(' | '))
      .argument('<hosts...>', 'BareMetalHosts or MaasMachines as NAMESPACE/NAME, or KIND/NAMESPACE/NAME (maasmachine/lab/m-0)')
      .option('--kind <kind>', 'the kind of every host given: BareMetalHost (bmh; the default) or MaasMachine (the default for release)')
      .option('--mode <mode>', 'reboot only: soft (default) or hard')
      .option('--request-id <id>', 'an id for this request (1-64 printable ASCII characters, no spaces); give the same one when retrying')
      .option('--reason <text>', 'why, for logs and events (at most 256 characters)')
      .option('--shards <n>', 'shard count of the cluster when its nodes do not announce one (default METALFLEET_SHARDS or 256)', shardsFlag)
      .option('--timeout <seconds>', 'give up on a host after this long, retries included', intFlag('--timeout', 1), 30)
      .option('--json', 'print a JSON record per host (host, kind, action, requestId, outcome, applied, state, message, error)')
      .addOption(new Option('-o, --output <format>', 'table (lines), json or yaml').default('table')),
  )))
    .addHelpText('after', '\nExamples:\n  metalfleet host power-off metal3/worker-0 --nats nats://127.0.0.1:4222 --signing-key ~/.metalfleet/operator.seed\n  metalfleet host reboot metal3/worker-0 metal3/worker-1 --mode hard --reason "stuck in BIOS"\n  metalfleet host release default/c1-md-0-x7k2p --request-id rma-1234   # a MaasMachine: released, failed, replaced by Cluster API\n  metalfleet host power-off --kind MaasMachine default/c1-md-0-x7k2p     # or maasmachine/default/c1-md-0-x7k2p\n  metalfleet host pause metal3/worker-0 metal3/worker-1 --json | jq \'.hosts[] | select(.error)\'\n')
    .action(async (action: string, hosts: string[], flags: HostFlags) => {
      // Only the format flags: this --timeout is whole seconds for the hosts, not the views' wait.
      const format = formatFrom({ ...(flags.json ? { json: true } : {}), ...(flags.output !== undefined ? { output: flags.output } : {}) });
      const cmds = buildHostCommands(action, hosts, flags);
      const shardCount = flags.shards ?? readEnv().METALFLEET_SHARDS;
      // `metalfleet host pause ... | head`: a reader that has what it wanted ends the command quietly.
      endQuietlyWhenReaderCloses();
      const ok = await runHostCommands(cmds, flags, shardCount, flags.timeout * 1_000, {
        out: (line) => process.stdout.write(`${line}\n`),
        err: (line) => process.stderr.write(`${line}\n`),
      }, format);
      if (!ok) process.exitCode = 1;
    });
}
