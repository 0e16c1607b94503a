import type { HostCommandName } from '../api/index.ts';

// How a kind turns a command into a write of intent on its object (issue 29 point 2): as data,
// so the command path dispatches by the kind's declaration and never by a switch over kinds, and
// the command is exactly as durable as `kubectl annotate` or `kubectl edit`.

interface CommandCommon {
  /** `namespace/name` of the object. */
  readonly host: string;
  readonly kind?: string | undefined;
  readonly requestId?: string | undefined;
  readonly reason?: string | undefined;
}

/** A command as a kind reads it, validated on the wire (bus/messages/command.ts) before it gets here. */
export type KindCommand =
  | (CommandCommon & { readonly type: Exclude<HostCommandName, 'reboot'> })
  | (CommandCommon & { readonly type: 'reboot'; readonly mode: 'soft' | 'hard' });

/** A user's intent as a store write: annotations to set (string) or remove (null), top-level spec fields to set. */
export interface StoreWrite {
  readonly annotations?: Readonly<Record<string, string | null>>;
  readonly spec?: Readonly<Record<string, unknown>>;
}

export type CommandDecision =
  | {
      readonly ok: true;
      /** What to record: a write, or a deletion request ('delete' even when it repeats one). */
      readonly write: StoreWrite | 'delete';
      /** The intent was already recorded: a repeat, nothing needs writing. */
      readonly alreadyApplied: boolean;
      /** For the reply: what was (or already had been) asked of the object. */
      readonly message: string;
    }
  | { readonly ok: false; readonly code: 'invalid' | 'conflict'; readonly message: string };

/** A kind's commands as writes. Pure: the stored object in, a decision out. */
export interface CommandIntent {
  /**
   * How a message names one of its objects, for the kind a command without a kind is for: 'host'
   * ("while reading the host", "powerOff for lab/h-1"), as before commands named kinds. Absent:
   * by its kind ("while reading the MaasMachine", "powerOff for MaasMachine capi/w0").
   */
  readonly noun?: string;
  /** Decides on the object as the store holds it (the kind types it; one that does not parse is refused). */
  decide(stored: unknown, command: KindCommand): CommandDecision;
  /** The object's state for the reply: '' before it has one, or when it does not parse. */
  state(stored: unknown): string;
}

interface Parses<O> {
  safeParse(value: unknown): { success: true; data: O } | { success: false; error: { issues: ReadonlyArray<{ message: string; path: ReadonlyArray<PropertyKey> }> } };
}

/**
 * A CommandIntent over the kind's typed object: `parse` types the stored value (a kind's zod
 * schema), and a value that does not parse is refused naming where, so nothing acts on it.
 */
export function typedIntent<O>(kind: string, schema: Parses<O>, decide: (object: O, command: KindCommand) => CommandDecision, state: (object: O) => string): CommandIntent {
  return {
    decide(stored, command) {
      const parsed = schema.safeParse(stored);
      if (parsed.success) return decide(parsed.data, command);
      const issue = parsed.error.issues[0];
      const where = issue ? `${issue.message} at ${issue.path.map(String).join('.')}` : 'invalid';
      return { ok: false, code: 'conflict', message: `${kind} ${command.host} does not parse (${where}), so its machine cannot act on ${command.type}; apply a valid ${kind} first` };
    },
    state(stored) {
      const parsed = schema.safeParse(stored);
      return parsed.success ? state(parsed.data) : '';
    },
  };
}
