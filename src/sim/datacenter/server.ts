import type { SimAgent } from '../agent/index.ts';
import { describeRefusal, startAgent } from '../agent/index.ts';
import type { SimDisk } from '../agent/index.ts';
import { installDisk, serverInventory } from './inventory.ts';
import type { Refusal } from '../agent/index.ts';
import type { BootEvent, SimSystem } from '../redfish/index.ts';
import type { BootOutcome, FirmwareContext } from './firmware.ts';
import { firmwareBoot } from './firmware.ts';

export interface ServerEnv {
  readonly firmware: Omit<FirmwareContext, 'macs' | 'diskBootable' | 'ironicUrl'>;
  readonly ironicUrl: () => string;
  readonly heartbeatIntervalMs?: number;
  readonly minHeartbeatGapMs?: number;
  /** Ironic refused this server's agent (see the agent's onRefused). */
  readonly onAgentRefused?: (serverId: string, refusal: Refusal) => void;
}

// One simulated server: its BMC's system, its disk, and the deploy ramdisk's agent while it runs.
// The BMC's power and boot events drive it: a boot runs the firmware (which may start an agent),
// power off ends whatever ran. Boots are handled one at a time, in order.
export class SimServer {
  readonly disk: SimDisk;
  #agent: SimAgent | null = null;
  #queue: Promise<void> = Promise.resolve();
  #journal: string[] = [];
  #boots: BootOutcome[] = [];

  constructor(readonly system: SimSystem, private readonly env: ServerEnv) {
    this.disk = installDisk(system);
    system.on('boot', (event) => this.#enqueue(() => this.#boot(event)));
    system.on('power', ({ on }) => {
      if (!on) this.#enqueue(() => this.#stopAgent('power off'));
    });
  }

  get id(): string {
    return this.system.id;
  }

  get agent(): SimAgent | null {
    return this.#agent;
  }

  /** What each boot found, in order. */
  get boots(): readonly BootOutcome[] {
    return this.#boots;
  }

  get journal(): readonly string[] {
    return this.#journal;
  }

  /** Waits for boots and power-offs already signalled. */
  settled(): Promise<void> {
    return this.#queue;
  }

  async stop(): Promise<void> {
    await this.#enqueue(() => this.#stopAgent('datacenter stopped'));
  }

  #enqueue(job: () => Promise<void>): Promise<void> {
    this.#queue = this.#queue.then(job).catch((err: unknown) => {
      this.#journal.push(`error: ${err instanceof Error ? err.message : String(err)}`);
    });
    return this.#queue;
  }

  async #boot(event: BootEvent): Promise<void> {
    await this.#stopAgent('reboot');
    const outcome = await firmwareBoot(event, {
      ...this.env.firmware,
      macs: this.system.info.macs,
      ironicUrl: this.env.ironicUrl(),
      diskBootable: () => this.disk.image !== null,
    });
    this.#boots.push(outcome);
    this.#journal.push(`boot ${event.target}: ${outcome.kind}: ${outcome.detail}`);
    if (outcome.kind !== 'ramdisk' || !this.system.state.on) return;
    this.#agent = await startAgent({
      ironicUrl: outcome.ironicUrl,
      macs: this.system.info.macs,
      disk: this.disk,
      ...(this.env.heartbeatIntervalMs !== undefined ? { heartbeatIntervalMs: this.env.heartbeatIntervalMs } : {}),
      ...(this.env.minHeartbeatGapMs !== undefined ? { minHeartbeatGapMs: this.env.minHeartbeatGapMs } : {}),
      ...(outcome.inspectionCallbackUrl !== undefined ? { inspectionCallbackUrl: outcome.inspectionCallbackUrl } : {}),
      inventory: serverInventory(this.system, this.disk.sizeBytes, this.disk.blockDevice()),
      onRefused: (r) => {
        this.#journal.push(`agent: ${describeRefusal(r)}`);
        this.env.onAgentRefused?.(this.id, r);
      },
      // The ramdisk's own power-off and reboot go through the hardware, as IPA's do.
      onPowerOff: () => this.system.setPower(false),
      onReboot: () => void this.system.reset('ForceRestart'),
    });
  }

  async #stopAgent(why: string): Promise<void> {
    const agent = this.#agent;
    if (agent === null) return;
    this.#agent = null;
    this.#journal.push(`agent stopped: ${why}`);
    await agent.stop();
  }
}
