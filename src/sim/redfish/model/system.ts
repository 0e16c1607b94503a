import { EventEmitter } from 'node:events';
import { applyPendingBios } from './bios.ts';
import { bmcProfile } from './bmc.ts';
import type { BmcProfile } from './bmc.ts';
import { bootDevice } from './boot.ts';
import type { BootOverride } from './boot.ts';
import type { SimFaults } from './faults.ts';
import type { FirmwareComponent } from './firmware.ts';
import { modelInfo } from './models.ts';
import type { ModelInfo } from './models.ts';
import { resetEffect } from './power.ts';
import type { ResetType } from './power.ts';
import type { BootEvent, Hardware, PowerEvent, SystemState, VirtualMediaSlot, VirtualMediaState } from './state.ts';

/** What a system tells the rest of the virtual datacenter. */
export interface SimSystemEvents {
  power: [PowerEvent];
  boot: [BootEvent];
}

/** The credentials and addresses of one simulated BMC: what a user enrols in Ironic or Metal3. */
export interface SimSystemInfo {
  id: string;
  /** Metal3 form: redfish+http://127.0.0.1:PORT/redfish/v1/Systems/<id> (redfish://… with tls). */
  address: string;
  /** Metal3 form for virtual media boot: redfish-virtualmedia+http://… (redfish-virtualmedia://… with tls) */
  virtualMediaAddress: string;
  /** Ironic driver_info redfish_address: http://127.0.0.1:PORT (https://… with tls). */
  redfishAddress: string;
  /** Ironic driver_info redfish_system_id: /redfish/v1/Systems/<id>. */
  systemPath: string;
  username: string;
  password: string;
  macs: string[];
  uuid: string;
}

/**
 * One simulated server behind its BMC. The HTTP layer and tests call the same methods, so a test
 * that alters state (setPower, bios.pending, faults) sees exactly what a Redfish client would.
 */
export class SimSystem extends EventEmitter<SimSystemEvents> {
  faults: SimFaults;

  constructor(readonly info: SimSystemInfo, readonly hardware: Hardware, readonly state: SystemState, faults: SimFaults) {
    super();
    this.faults = faults;
  }

  get id(): string {
    return this.info.id;
  }

  /** Manufacturer, Model and the BIOS attribute registry of this server's model. */
  get model(): ModelInfo {
    return modelInfo(this.hardware.model);
  }

  /** What its BMC firmware does: the Base registry its errors cite, its InsertMedia quirks. */
  get bmc(): BmcProfile {
    return bmcProfile(this.hardware.bmc);
  }

  /** A deep copy of the state, safe to keep and compare (state itself is live). */
  snapshot(): SystemState {
    return structuredClone(this.state);
  }

  setFaults(faults: Partial<SimFaults>): void {
    this.faults = { ...this.faults, ...faults };
  }

  /** ComputerSystem.Reset; false when a stuck power supply swallowed it. */
  reset(type: ResetType): boolean {
    if (this.faults.powerStuck) return false;
    const effect = resetEffect(type, this.state.on);
    if (effect === 'powerOn') this.setPower(true);
    else if (effect === 'powerOff') this.setPower(false);
    else if (effect === 'restart') this.boot();
    return true;
  }

  /** Power as if at the chassis: on boots, off stops. */
  setPower(on: boolean): void {
    if (this.state.on === on) return;
    this.state.on = on;
    this.emit('power', { on });
    if (on) this.boot();
  }

  setBootOverride(override: Partial<BootOverride>): void {
    this.state.boot = { ...this.state.boot, ...override };
  }

  setVirtualMedia(slot: VirtualMediaSlot, media: Partial<VirtualMediaState>): void {
    this.state.virtualMedia[slot] = { ...this.state.virtualMedia[slot], ...media };
  }

  setFirmware(component: FirmwareComponent, version: string): void {
    this.state.firmware[component] = version;
  }

  /** What firmware does at power-on: apply pending BIOS, consume a Once override, then boot. */
  private boot(): void {
    const s = this.state;
    applyPendingBios(s.bios, this.model.registry);
    // UEFI enforces secure boot only with a platform key enrolled: not in SetupMode (no PK).
    const pk = s.secureBoot.mode !== 'SetupMode';
    s.secureBoot.currentBoot = s.secureBoot.enabled && pk && s.boot.mode === 'UEFI' ? 'Enabled' : 'Disabled';
    const target = bootDevice(s.boot, s.defaultBootTarget);
    const mode = s.boot.mode;
    if (s.boot.enabled === 'Once') s.boot = { ...s.boot, enabled: 'Disabled' };
    s.boots += 1;
    const media = s.virtualMedia[target === 'Floppy' || target === 'Usb' ? 'Floppy' : 'Cd'];
    this.emit('boot', { target, mode, virtualMedia: { image: media.image, inserted: media.inserted } });
  }
}
