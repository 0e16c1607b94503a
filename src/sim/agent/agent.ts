// A booted deploy ramdisk: it listens on its own port, looks its node up by MAC until Ironic
// knows it (lookup only answers in deploy/clean/inspect/rescue wait states), then heartbeats with
// its callback URL and runs what the conductor asks. standby.power_off ends it, as does stop().
import { commandTable } from './commands.ts';
import type { CommandResult } from './command-log.ts';
import { CommandLog } from './command-log.ts';
import { agentApi } from './api.ts';
import type { SimDisk } from './disk.ts';
import { listen } from './http.ts';
import { ironicRamdiskClient } from './ironic-client.ts';

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
  /** agent_version sent with heartbeats. */
  agentVersion?: string;
  /** The ramdisk powered the machine off (standby.power_off): a BMC simulator turns its power off here. */
  onPowerOff?: () => void;
  /** The ramdisk rebooted the machine (standby.run_image). */
  onReboot?: () => void;
}

export type AgentState = 'looking up' | 'heartbeating' | 'powered off' | 'stopped' | 'failed';

export interface SimAgent {
  /** The callback URL it advertises, http://127.0.0.1:PORT. */
  readonly url: string;
  readonly state: AgentState;
  readonly nodeUuid: string | null;
  /** Heartbeats Ironic accepted (202). */
  readonly heartbeats: number;
  /** Why the last lookup or heartbeat failed, null after a success. */
  readonly lastError: string | null;
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
  let state: AgentState = 'looking up';
  let nodeUuid: string | null = null;
  let token: string | null = null;
  let intervalMs = opts.heartbeatIntervalMs ?? 0;
  let heartbeats = 0;
  let lastError: string | null = null;
  let lastBeat = 0;
  let timer: NodeJS.Timeout | null = null;
  let beating = false;
  const minGap = opts.minHeartbeatGapMs ?? 5_000;
  const running = (): boolean => state === 'looking up' || state === 'heartbeating';

  const schedule = (ms: number): void => {
    if (timer !== null) clearTimeout(timer);
    if (running()) timer = setTimeout(() => void beat(), Math.max(0, ms));
  };

  const log = new CommandLog((r) => {
    journal.push(`command ${r.command_name} ${r.command_status}`);
    // IPA forces a heartbeat when a command ends, so Ironic moves on without waiting a period.
    if (state === 'heartbeating') schedule(Math.max(0, minGap - (Date.now() - lastBeat)));
  });
  const halt = (to: AgentState, hook?: () => void): void => {
    if (!running()) return;
    state = to;
    journal.push(to);
    if (timer !== null) clearTimeout(timer);
    // Let the answer to the last command reach Ironic before the "machine" goes dark.
    setTimeout(() => {
      server.close();
      server.closeIdleConnections();
      hook?.();
    }, 20);
  };
  const ctx = {
    disk: opts.disk,
    write: { cachedImageId: null },
    journal,
    workMs: opts.workMs ?? 0,
    powerOff: () => halt('powered off', opts.onPowerOff),
    reboot: () => halt('stopped', opts.onReboot),
  };
  const server = agentApi({ log, commands: commandTable(ctx), token: () => token, startedAt: new Date(), version: opts.agentVersion ?? DEFAULT_AGENT_VERSION });
  const port = await listen(server);
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();

  async function lookup(): Promise<void> {
    const r = await ironic.lookup(opts.macs, opts.nodeUuid);
    if (r.answer === null) {
      lastError = `lookup answered ${r.status}: ${r.error ?? ''}`;
      if (Date.now() - started > (opts.lookupTimeoutMs ?? 600_000)) {
        state = 'failed';
        journal.push(`lookup failed: ${lastError}`);
        return;
      }
      return schedule(opts.lookupIntervalMs ?? 1_000);
    }
    nodeUuid = r.answer.node.uuid;
    const offered = r.answer.config.agent_token ?? null;
    token = opts.agentToken !== undefined && (offered === null || offered === '******') ? opts.agentToken : offered;
    // Ironic hands the token out once per boot; a repeated lookup (the first answer lost to a
    // timeout) gets it masked. Heartbeating without it would be refused forever: say so and stop.
    if (token === '******') {
      state = 'failed';
      lastError = `lookup of node ${r.answer.node.uuid} answered a masked agent token: an earlier lookup of this boot already took it`;
      journal.push(lastError);
      return;
    }
    if (opts.heartbeatIntervalMs === undefined) intervalMs = Math.max(5_000, (r.answer.config.heartbeat_timeout ?? 300) * 450);
    state = 'heartbeating';
    lastError = null;
    journal.push(`looked up node ${nodeUuid}`);
    schedule(0);
  }

  async function heartbeat(): Promise<void> {
    if (nodeUuid === null) return;
    lastBeat = Date.now();
    const r = await ironic.heartbeat(nodeUuid, { callback_url: url, agent_token: token ?? '', agent_version: opts.agentVersion ?? DEFAULT_AGENT_VERSION });
    if (r.error === null) {
      heartbeats++;
      lastError = null;
      schedule(intervalMs);
    } else {
      const repeated = lastError === `heartbeat answered ${r.status}: ${r.error}`;
      lastError = `heartbeat answered ${r.status}: ${r.error}`;
      if (!repeated) journal.push(lastError);
      // IPA retries a failed heartbeat sooner than a period: 1–2 × its 5 s minimum.
      schedule(Math.min(intervalMs, minGap));
    }
  }

  async function beat(): Promise<void> {
    if (beating || !running()) return;
    beating = true;
    try {
      await (state === 'looking up' ? lookup() : heartbeat());
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
      schedule(state === 'looking up' ? opts.lookupIntervalMs ?? 1_000 : Math.min(intervalMs, minGap));
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
    get commands() { return log.list(); },
    journal,
    async stop() {
      if (running()) state = 'stopped';
      if (timer !== null) clearTimeout(timer);
      await log.settle();
      await new Promise<void>((done) => {
        if (!server.listening) return done();
        server.close(() => done());
        server.closeAllConnections();
      });
    },
  };
}
