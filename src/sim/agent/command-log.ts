// IPA's command bookkeeping: every command gets a result record that GET /v1/commands lists in
// order; a new command while the last asynchronous one still runs is refused (409 "Agent is
// busy"), which Ironic turns into "retry on the next heartbeat".
import { randomUUID } from 'node:crypto';
import type { AgentErrorBody } from './errors.ts';
import { agentBusy, errorBody } from './errors.ts';

export type CommandStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED';

export interface CommandResult {
  id: string;
  command_name: string;
  command_status: CommandStatus;
  command_error: AgentErrorBody | null;
  command_result: unknown;
}

/** A command's work: sync ones finish before the POST answers, async ones run on. */
export interface CommandSpec {
  readonly async: boolean;
  /** IPA's command validator: throws (an AgentError) before the command starts, leaving no result. */
  validate?(params: Record<string, unknown>): void;
  run(params: Record<string, unknown>): Promise<unknown>;
}

/**
 * What a command's return value becomes in its record, as IPA's command results make it: a string
 * from an asynchronous command is {"result": "<name>: <string>"} (AsyncCommandResult.run), one
 * from a synchronous command {"result": <string>} (SyncCommandResult); anything else as it is.
 */
export function commandResult(name: string, async: boolean, result: unknown): unknown {
  if (typeof result !== 'string') return result ?? null;
  return { result: async ? `${name}: ${result}` : result };
}

export class CommandLog {
  readonly #results: CommandResult[] = [];
  readonly #pending = new Map<string, Promise<void>>();

  constructor(private readonly onAsyncDone: (r: CommandResult) => void) {}

  list(): readonly CommandResult[] {
    return this.#results;
  }

  /**
   * Starts the command; resolves with its record (final when `wait` or sync, else RUNNING). As
   * IPA's execute_command: a busy agent refuses before the command is even looked up, and
   * whatever `spec` or its validator throws leaves no record.
   */
  async execute(name: string, spec: () => CommandSpec, params: Record<string, unknown>, wait: boolean): Promise<CommandResult> {
    const last = this.#results.at(-1);
    if (last?.command_status === 'RUNNING') throw agentBusy(last.command_name);
    return this.#start(name, spec(), params, wait);
  }

  /** A record by id, when it has finished if `wait`; null for an unknown id. */
  async get(id: string, wait: boolean): Promise<CommandResult | null> {
    const record = this.#results.find((r) => r.id === id);
    if (record === undefined) return null;
    if (wait) await this.#pending.get(id);
    return { ...record };
  }

  async #start(name: string, spec: CommandSpec, params: Record<string, unknown>, wait: boolean): Promise<CommandResult> {
    spec.validate?.(params);
    const record: CommandResult = { id: randomUUID(), command_name: name, command_status: 'RUNNING', command_error: null, command_result: null };
    this.#results.push(record);
    const done = spec.run(params).then(
      (result) => {
        record.command_result = commandResult(name, spec.async, result);
        record.command_status = 'SUCCEEDED';
      },
      (err: unknown) => {
        record.command_error = errorBody(err);
        record.command_status = 'FAILED';
      },
    ).finally(() => {
      this.#pending.delete(record.id);
      if (spec.async) this.onAsyncDone(record);
    });
    this.#pending.set(record.id, done);
    if (!spec.async || wait) await done;
    return { ...record };
  }

  /** Waits for whatever is still running (used by stop()). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#pending.values()]);
  }
}
