// Host commands from the page: refused unless the UI was started with --ui-commands and the
// request carries the token printed at start. The token is compared in constant time, so its
// bytes cannot be found one by one from response times.
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { z } from 'zod';
import { HostKind } from '../bus/messages/introspect.ts';

/** What the page may ask, with the host command each becomes (src/bus/messages/command.ts). */
export const UI_ACTIONS = {
  'power-on': 'powerOn',
  'power-off': 'powerOff',
  reboot: 'reboot',
  detach: 'detach',
  attach: 'attach',
  pause: 'pause',
  unpause: 'unpause',
  inspect: 'inspect',
  // Firmware changes on a provisioned host (HostUpdatePolicy onReboot): it reboots to apply them.
  service: 'service',
  // MaasMachines only: the MAAS machine goes back to MAAS and Cluster API replaces the Machine.
  // The page asks before it sends one.
  release: 'release',
} as const;
export type UiAction = keyof typeof UI_ACTIONS;

export const CommandRequest = z.strictObject({
  action: z.enum(Object.keys(UI_ACTIONS) as [UiAction, ...UiAction[]]),
  // The host's kind, as its page shows it: a BareMetalHost and a MaasMachine may share a name.
  // Absent: a BareMetalHost, as a command without a kind is (src/bus/messages/command.ts).
  kind: HostKind.optional(),
  reason: z.string().max(256).optional(),
});
export type CommandRequest = z.infer<typeof CommandRequest>;

/** The header the page sends the token in (a custom header also keeps other sites' forms out). */
export const TOKEN_HEADER = 'x-metalfleet-ui-token';

export type GateVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly status: 403; readonly reason: string };

export interface CommandGate {
  readonly enabled: boolean;
  /** The token to print at start; null when commands are off. */
  readonly token: string | null;
  check(presented: string | undefined): GateVerdict;
}

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

export function commandGate(options: { enabled: boolean; token?: string }): CommandGate {
  const token = options.enabled ? options.token ?? newToken() : null;
  // Both sides hashed first: equal lengths for timingSafeEqual, and the length of the token hidden.
  const expected = token === null ? null : createHash('sha256').update(token).digest();
  return {
    enabled: options.enabled,
    token,
    check(presented) {
      if (expected === null) return { ok: false, status: 403, reason: 'commands are off: start the UI with --ui-commands to send host commands from the page' };
      if (!presented) return { ok: false, status: 403, reason: `no token: open the page with the URL printed at start (it carries the token), or send it in the ${TOKEN_HEADER} header` };
      const given = createHash('sha256').update(presented).digest();
      if (!timingSafeEqual(given, expected)) return { ok: false, status: 403, reason: 'wrong token: use the one printed when the UI started' };
      return { ok: true };
    },
  };
}
