// A booted deploy ramdisk: it listens on its own port, looks its node up by MAC until Ironic
// knows it (lookup only answers in deploy/clean/inspect/rescue wait states), then heartbeats with
// its callback URL and runs what the conductor asks. standby.power_off ends it, as does stop().
// Booted for agent inspection (an inspection callback URL), it first posts its inventory to
// Ironic's /v1/continue_inspection, whose answer replaces the lookup. A refused call is reported
// and retried later and later (backoff.ts), never silently every few hundred milliseconds.
import { commandTable } from './commands.ts';
import type { CommandResult } from './command-log.ts';
import { CommandLog } from './command-log.ts';
import { describeRefusal, RefusalBackoff } from './backoff.ts';
import type { Refusal } from './backoff.ts';
import { agentInventory } from './inventory.ts';
import { agentApi } from './api.ts';
import type { SimDisk } from './disk.ts';
import { closeServer, listen } from './http.ts';
import { ironicRamdiskClient } from './ironic-client.ts';
import { DEFAULT_DOWNLOAD_POLICY } from './write-image.ts';
import type { LookupAnswer } from './ironic-client.ts';

export interface StartAgentOptions {
  /** Ironic's API, http://host:port (with or without /v1). */
  ironicUrl: string;
  /** The server's NIC MACs, as its ports in Ironic know them. */
  macs: readonly string[];
  disk: SimDisk;
  /** Sent with lookup (IPA's ipa-node-uuid kernel parameter, as virtual media boots give it). */
  nodeUuid?: string;
  /**
   * A token the boot medium carried (virtual media: Ironic pregenerates it into the ISO). Lookup
   * then answers "******" instead of a token, and the agent keeps this one, as IPA does.
   */
  agentToken?: string;
  /** Heartbeat period; default as IPA: 0.45 × the heartbeat_timeout lookup returns, at least 5 s. */
  heartbeatIntervalMs?: number;
  /** After an asynchronous command ends the agent heartbeats at once, but not closer than this to the last (IPA: 5 s). */
  minHeartbeatGapMs?: number;
  /** Pause between failed lookups; default 1 s. */
  lookupIntervalMs?: number;
  /** Give up looking up after this long (state "failed"); default 10 minutes. */
  lookupTimeoutMs?: number;
  /** Time erase, burn-in and bootloader work takes; default 0. */
  workMs?: number;
  /** Retries of a failed image download (no answer, cut short, 5xx); default 2, as IPA. */
  downloadRetries?: number;
  /** The pause before such a retry; default 1 s (IPA: 10 s). */
  downloadRetryIntervalMs?: number;
  /** agent_version sent with heartbeats. */
  agentVersion?: string;
  /**
   * Ironic's ipa-inspection-callback-url (…/v1/continue_inspection): the ramdisk was booted to
   * inspect, and posts its inventory there before heartbeating (API 1.84, Ironic 22.1 and newer).
   */
  inspectionCallbackUrl?: string;
  /** The inventory to post; default one made from the MACs and the disk (inventory.ts). */
  inventory?: Record<string, unknown>;
  /** Ironic refused a heartbeat or the inspection data: called on the first refusal, on a new message and as the run doubles. */
  onRefused?: (refusal: Refusal) => void;
  /** The longest wait between refused heartbeats; default 30 s. */
  maxRetryMs?: number;
  /** The ramdisk powered the machine off (standby.power_off): a BMC simulator turns its power off here. */
  onPowerOff?: () => void;
  /** The ramdisk rebooted the machine (standby.run_image). */
  onReboot?: () => void;
}

export type AgentState = 'inspecting' | 'looking up' | 'heartbeating' | 'powered off' | 'stopped' | 'failed';

export interface SimAgent {
  /** The callback URL it advertises, http://127.0.0.1:PORT. */
  readonly url: string;
  readonly state: AgentState;
  readonly nodeUuid: string | null;
  /** Heartbeats Ironic accepted (202). */
  readonly heartbeats: number;
  /** Why the last lookup or heartbeat failed, null after a success. */
  readonly lastError: string | null;
  /** Heartbeats (or inspection posts) Ironic refused in a row, 0 after an accepted one. */
  readonly refusals: number;
  /** Ironic took this agent's inspection data (continue_inspection answered 202). */
  readonly inspected: boolean;
  /** Every command run, as GET /v1/commands lists them. */
  readonly commands: readonly CommandResult[];
  /** What the agent did, one line per event (also the tarball of log.collect_system_logs). */
  readonly journal: readonly string[];
  stop(): Promise<void>;
}

const DEFAULT_AGENT_VERSION = '9.4.1';

export async function startAgent(opts: StartAgentOptions): Promise<SimAgent> {
  const journal: string[] = [];
  const ironic = ironicRamdiskClient(opts.ironicUrl);
  let state: AgentState = opts.inspectionCallbackUrl !== undefined ? 'inspecting' : 'looking up';
  let inspected = false;
  let nodeUuid: string | null = null;
  let token: string | null = null;
  let intervalMs = opts.heartbeatIntervalMs ?? 0;
  let heartbeats = 0;
  let lastError: string | null = null;
  let lastBeat = 0;
  let timer: NodeJS.Timeout | null = null;
  let beating = false;
  // A command ended since the last heartbeat was sent: Ironic is to hear of it after minGap, not a period.
  let forced = false;
  const minGap = opts.minHeartbeatGapMs ?? 5_000;
  const running = (): boolean => state === 'inspecting' || state === 'looking up' || state === 'heartbeating';
  // A refused call: a journal line and a report per new message or doubled run; the delay grows.
  const backoff = new RefusalBackoff(Math.max(minGap, 100), opts.maxRetryMs ?? 30_000, (r) => {
    journal.push(describeRefusal(r));
    opts.onRefused?.(r);
  });
  const refused = (call: string, status: number, message: string): number => ((lastError = `${call} answered ${status}: ${message}`), backoff.refused(call, status, message));

  const schedule = (ms: number): void => {
    if (timer !== null) clearTimeout(timer);
    if (running()) timer = setTimeout(() => void beat(), Math.max(0, ms));
  };

  const untilGap = (): number => Math.max(0, minGap - (Date.now() - lastBeat));
  const log = new CommandLog((r) => {
    journal.push(`command ${r.command_name} ${r.command_status}`);
    // IPA forces a heartbeat when a command ends, so Ironic moves on without waiting a period. A
    // heartbeat in flight reschedules when it is answered, and must not then wait a whole period:
    // the conductor often runs a command to its end before its answer to that heartbeat.
    forced = true;
    if (state === 'heartbeating' && !beating) schedule(untilGap());
  });
  const halt = (to: AgentState, hook?: () => void): void => {
    if (!running()) return;
    state = to;
    journal.push(to);
    if (timer !== null) clearTimeout(timer);
    // Let the answer to the last command reach Ironic before the "machine" goes dark.
    setTimeout(() => (server.close(), server.closeIdleConnections(), hook?.()), 20);
  };
  const cachedNode: { current: unknown } = { current: null };
  const commands = commandTable({
    disk: opts.disk, write: { cachedImageId: null }, journal, workMs: opts.workMs ?? 0,
    node: cachedNode,
    download: { retries: opts.downloadRetries ?? DEFAULT_DOWNLOAD_POLICY.retries, intervalMs: opts.downloadRetryIntervalMs ?? DEFAULT_DOWNLOAD_POLICY.intervalMs },
    powerOff: () => halt('powered off', opts.onPowerOff), reboot: () => halt('stopped', opts.onReboot),
  });
  const server = agentApi({ log, commands, token: () => token, startedAt: new Date(), version: opts.agentVersion ?? DEFAULT_AGENT_VERSION });
  const port = await listen(server);
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();

  // A failed lookup, whether Ironic answered no or could not be reached: as IPA's lookup_node
  // (stop_after_delay), the agent tries again until lookupTimeoutMs has passed, then gives up.
  function lookupFailed(error: string): void {
    lastError = error;
    if (Date.now() - started > (opts.lookupTimeoutMs ?? 600_000)) {
      state = 'failed';
      journal.push(`lookup failed: ${lastError}`);
      return;
    }
    schedule(opts.lookupIntervalMs ?? 1_000);
  }

  async function lookup(): Promise<void> {
    const r = await ironic.lookup(opts.macs, opts.nodeUuid);
    if (r.answer === null) return lookupFailed(`lookup answered ${r.status}: ${r.error ?? ''}`);
    adopt(r.answer, 'looked up');
  }

  // What lookup (or continue_inspection) answered: the node, its token and the heartbeat period.
  function adopt(answer: LookupAnswer, how: string): void {
    nodeUuid = answer.node.uuid;
    cachedNode.current = answer.node;
    const offered = answer.config.agent_token ?? null;
    token = opts.agentToken !== undefined && (offered === null || offered === '******') ? opts.agentToken : offered;
    // Ironic hands the token out once per boot; a repeated lookup (the first answer lost to a
    // timeout) gets it masked. Heartbeating without it would be refused forever: say so and stop.
    if (token === '******') {
      state = 'failed';
      lastError = `${how === 'looked up' ? 'lookup' : 'continue_inspection'} of node ${answer.node.uuid} answered a masked agent token: an earlier lookup of this boot already took it`;
      journal.push(lastError);
      return;
    }
    if (opts.heartbeatIntervalMs === undefined) intervalMs = Math.max(5_000, (answer.config.heartbeat_timeout ?? 300) * 450);
    state = 'heartbeating';
    lastError = null;
    journal.push(`${how} node ${nodeUuid}`);
    schedule(0);
  }

  // As IPA: inspection data first; refused, the ramdisk goes on to look itself up as usual.
  async function inspect(callbackUrl: string): Promise<void> {
    const inventory = opts.inventory ?? agentInventory({ macs: opts.macs, diskBytes: opts.disk.sizeBytes, disk: opts.disk.blockDevice() });
    const r = await ironic.continueInspection(callbackUrl, { inventory }, opts.nodeUuid);
    if (r.answer === null) {
      refused('continue_inspection', r.status, r.error ?? '');
      state = 'looking up';
      return schedule(0);
    }
    inspected = true;
    backoff.accepted();
    adopt(r.answer, 'inspection data taken for');
  }

  async function heartbeat(): Promise<void> {
    if (nodeUuid === null) return;
    lastBeat = Date.now();
    forced = false;
    const r = await ironic.heartbeat(nodeUuid, { callback_url: url, agent_token: token ?? '', agent_version: opts.agentVersion ?? DEFAULT_AGENT_VERSION });
    if (r.error === null) {
      heartbeats++;
      lastError = null;
      backoff.accepted();
      schedule(forced ? untilGap() : intervalMs);
    } else {
      // IPA retries a failed heartbeat sooner than a period; a run of refusals (Ironic >= 26
      // refusing a plain-http callback) waits longer each time and is reported.
      schedule(refused('heartbeat', r.status, r.error));
    }
  }

  async function beat(): Promise<void> {
    if (beating || !running()) return;
    beating = true;
    try {
      const callback = opts.inspectionCallbackUrl;
      await (state === 'inspecting' && callback !== undefined ? inspect(callback) : state === 'looking up' ? lookup() : heartbeat());
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (state === 'looking up') lookupFailed(message);
      else schedule(refused(state === 'inspecting' ? 'continue_inspection' : 'heartbeat', 0, message));
    } finally {
      beating = false;
    }
  }

  schedule(0);
  return {
    url,
    get state() { return state; },
    get nodeUuid() { return nodeUuid; },
    get heartbeats() { return heartbeats; },
    get lastError() { return lastError; },
    get refusals() { return backoff.count; },
    get inspected() { return inspected; },
    get commands() { return log.list(); },
    journal,
    async stop() {
      if (running()) state = 'stopped';
      if (timer !== null) clearTimeout(timer);
      await log.settle();
      await closeServer(server);
    },
  };
}
