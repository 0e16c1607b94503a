// The shared "connect, gather, print" of the introspection commands. A command's logic is a
// function (Transport, options) -> CommandOutput, so a test runs it in-process on the memory bus;
// the commander action only parses flags, connects, calls it and prints.
import type { Command } from 'commander';
import { Option } from 'commander';
import { stringify } from 'yaml';
import { BusConnectError, connectNats, withoutUserinfo } from '../../bus/index.ts';
import { IntrospectUnavailable } from '../../cluster/introspect/index.ts';
import type { Transport } from '../../ports/index.ts';
import { CliError } from '../cli-error.ts';
import { didYouMean } from '../did-you-mean.ts';
import { addNatsFlags, natsOptionsFrom, natsUnreachable, type NatsFlagValues } from '../nats-options.ts';
import { checkNatsTlsFiles } from '../nats-tls-flags.ts';
import { outputWidth } from './format.ts';
import { oneLineUsageErrors, usageErrorsExitTwo } from '../usage-errors.ts';

export type OutputFormat = 'table' | 'json' | 'yaml';

/** What a command prints: text for stdout, one-line messages for stderr, and the exit code. */
export interface CommandOutput {
  readonly stdout: string;
  readonly stderr: readonly string[];
  readonly exitCode: number;
}

/** What every introspection command takes besides its own filters. */
export interface ViewOptions {
  readonly format: OutputFormat;
  /** Table width in characters. */
  readonly width: number;
  /** How long to wait for the nodes' answers. */
  readonly timeoutMs: number;
  /** Where the nodes were looked for, for messages ("--nats URL"). */
  readonly natsUrl: string;
  /** Ask only these nodes. */
  readonly nodes?: readonly string[];
}

export interface GatheredLike<T> {
  readonly replies: ReadonlyArray<{ readonly node: string; readonly value: T }>;
  readonly errors: ReadonlyArray<{ readonly node: string; readonly message: string }>;
  readonly missing: readonly string[];
}

export function seconds(ms: number): string {
  return `${Number((ms / 1_000).toFixed(1))}s`;
}

/** The error when nobody answered; a node that answered with an error is named with it. */
export function noAnswer<T>(gathered: GatheredLike<T>, options: Pick<ViewOptions, 'timeoutMs' | 'natsUrl' | 'nodes'>): CliError | null {
  if (gathered.replies.length > 0) return null;
  const failed = gathered.errors[0];
  if (failed) return new CliError(`node ${failed.node} failed to answer: ${failed.message}`);
  if (options.nodes && options.nodes.length > 0) {
    return new CliError(`node(s) ${options.nodes.join(', ')} did not answer within ${seconds(options.timeoutMs)}; see \`metalfleet nodes --nats ${options.natsUrl}\` for the members`);
  }
  return new CliError(`no metalfleet node answered within ${seconds(options.timeoutMs)}; is a node running with --nats ${options.natsUrl}?`);
}

/** Warnings about nodes that did not answer or answered with an error (the table is still printed). */
export function partialWarnings<T>(gathered: GatheredLike<T>, timeoutMs: number): string[] {
  const out: string[] = [];
  for (const e of gathered.errors) out.push(`warning: node ${e.node} answered with an error: ${e.message}`);
  if (gathered.missing.length > 0) out.push(`warning: no answer from node(s) ${gathered.missing.join(', ')} within ${seconds(timeoutMs)}`);
  return out;
}

/** The data as JSON or YAML, or null for the table format. */
export function renderData(data: unknown, format: OutputFormat): string | null {
  if (format === 'json') return `${JSON.stringify(data, null, 2)}\n`;
  if (format === 'yaml') return stringify(data);
  return null;
}

/** Table lines (or the data in the asked format) plus the warnings; exit 0. */
export function output(data: unknown, table: () => readonly string[], options: Pick<ViewOptions, 'format'>, warnings: readonly string[] = []): CommandOutput {
  const rendered = renderData(data, options.format);
  const lines = rendered === null ? table() : [];
  const stdout = rendered ?? (lines.length > 0 ? `${lines.join('\n')}\n` : '');
  return { stdout, stderr: warnings, exitCode: 0 };
}

// ---- flags ----------------------------------------------------------------------------------

export interface CommonFlags extends NatsFlagValues {
  json?: boolean;
  output?: string;
  timeout?: string;
}

/** --json, -o, --timeout and the NATS flags, on every introspection command; `formats` lists its -o values where it takes more (hosts: wide). */
export function addViewFlags(cmd: Command, formats: readonly string[] = FORMATS): Command {
  return usageErrorsExitTwo(addNatsFlags(cmd
    .option('--json', 'print the gathered data as JSON (with the nodes that did not answer)')
    .addOption(new Option('-o, --output <format>', formatList(formats)).default('table'))
    .option('--timeout <seconds>', 'how long to wait for the nodes to answer', '2')));
}

export { oneLineUsageErrors, usageErrorsExitTwo };

const FORMATS: readonly string[] = ['table', 'json', 'yaml'];

/** `table, json or yaml`. */
function formatList(formats: readonly string[]): string {
  return `${formats.slice(0, -1).join(', ')} or ${formats.at(-1) ?? ''}`;
}

/** The -o format; `formats` are the command's own (hosts: wide too), for the error that refuses another. */
export function formatFrom(flags: CommonFlags, formats: readonly string[] = FORMATS): OutputFormat {
  if (flags.json) {
    if (flags.output !== undefined && flags.output !== 'table' && flags.output !== 'json') throw new CliError(`--json and -o ${flags.output} ask for two formats: give one`, 2);
    return 'json';
  }
  const format = flags.output ?? 'table';
  if (format === 'table' || format === 'json' || format === 'yaml') return format;
  throw new CliError(`-o: unknown format "${format}": use ${formatList(formats)}${didYouMean(format, formats)}`, 2);
}

export function timeoutFrom(flags: CommonFlags): number {
  const raw = flags.timeout ?? '2';
  // Whole milliseconds: 0.0001 s was 0 ms, and every node "did not answer within 0s".
  const ms = raw.trim() === '' ? Number.NaN : Math.round(Number(raw) * 1_000);
  if (!Number.isFinite(ms) || ms < 1 || ms > 300_000) throw new CliError(`--timeout: expected seconds from 0.001 to 300, got "${raw}"`, 2);
  return ms;
}

/** Checks a flag against a list of values; a CliError (exit 2) names the flag and the choices. */
export function oneOf<T extends string>(flag: string, value: string | undefined, choices: readonly T[], normalize: (v: string) => string = (v) => v): T | undefined {
  if (value === undefined) return undefined;
  // Exact first: "Ready" (MAAS) and "ready" (BareMetalHost) differ only by case.
  const found = choices.find((c) => c === value) ?? choices.find((c) => normalize(c) === normalize(value));
  if (found === undefined) throw new CliError(`${flag}: unknown value "${value}": use one of ${choices.map((c) => (c.includes(' ') ? `"${c}"` : c)).join(', ')}${didYouMean(value, choices)}`, 2);
  return found;
}

/** `--node a,b --node c` as a list of node names; a CliError (exit 2) for a name that cannot be one. */
export function nodesFrom(values: readonly string[] | undefined): string[] | undefined {
  if (!values || values.length === 0) return undefined;
  const names = [...new Set(values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean))];
  for (const name of names) {
    if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new CliError(`--node: "${name}" is not a node name (letters, digits, "-" and "_")`, 2);
  }
  return names.length > 0 ? names : undefined;
}

/** For commander: collects a repeatable flag. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

// ---- connecting ------------------------------------------------------------------------------

export interface Connected {
  readonly transport: Transport;
  readonly natsUrl: string;
}

/** Connects for a short-lived command: a few quick tries, then one clear line. */
export async function connectCli(flags: NatsFlagValues, name: string, connectTimeoutMs = 5_000): Promise<Connected> {
  const options = await natsOptionsFrom(flags, process.env, name);
  // A TLS file that is missing is the flag's fault, not the server's: said before anything dials.
  await checkNatsTlsFiles(flags, process.env);
  // URLs as the user typed them, minus any user:pass@.
  const natsUrl = options.servers.map(withoutUserinfo).join(',');
  try {
    const transport = await connectNats({ ...options, maxReconnectAttempts: 1, reconnectTimeWaitMs: 500, timeoutMs: connectTimeoutMs });
    return { transport, natsUrl };
  } catch (error) {
    throw natsUnreachable(natsUrl, error, error instanceof BusConnectError && error.retryable);
  }
}

/**
 * A reader that stops early (`metalfleet hosts | head`) closes the pipe while the table is still
 * being written: it has what it wanted, so the command ends quietly (exit 0) instead of with
 * Node's unhandled EPIPE stack trace. Any other write error stays an error.
 */
export function endQuietlyWhenReaderCloses(stream: NodeJS.WriteStream = process.stdout): void {
  if (stream.listeners('error').includes(onStdoutError)) return;
  stream.on('error', onStdoutError);
}

function onStdoutError(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
}

/** Prints a CommandOutput and sets the exit code. */
export function print(out: CommandOutput): void {
  endQuietlyWhenReaderCloses();
  if (out.stdout) process.stdout.write(out.stdout);
  for (const line of out.stderr) process.stderr.write(`${line}\n`);
  if (out.exitCode !== 0) process.exitCode = out.exitCode;
}

/** Connect, run, print, close: the whole commander action of an introspection command. */
export async function runView(flags: CommonFlags, name: string, run: (transport: Transport, options: ViewOptions) => Promise<CommandOutput>, nodes?: readonly string[]): Promise<void> {
  const format = formatFrom(flags);
  const timeoutMs = timeoutFrom(flags);
  const { transport, natsUrl } = await connectCli(flags, name);
  try {
    print(await run(transport, { format, width: outputWidth(), timeoutMs, natsUrl, ...(nodes ? { nodes } : {}) }));
  } catch (error) {
    // The membership bucket unreadable: its message already says what and where, on one line.
    if (error instanceof IntrospectUnavailable) throw new CliError(error.message.replace(/\s+/g, ' '));
    throw error;
  } finally {
    await transport.close().catch(() => undefined);
  }
}
