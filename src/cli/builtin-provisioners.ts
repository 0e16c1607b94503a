import type { Operation } from '../machines/bmh/index.ts';
import type { BareMetalHostPlugin, MaasMachinePlugin } from '../plugin/index.ts';
import { PROVISIONER_CONTRACT_VERSION } from '../plugin/index.ts';
import type { MaasDriver } from '../ports/index.ts';
import type { IronicFlags } from './backends.ts';
import { fixtureProvisioner, ironicProvisioner } from './backends.ts';
import type { Env } from './config.ts';
import { MAX_TIMER_MS } from './config.ts';

// The backends metalfleet ships, as plugins: registered and checked by the same registry as a
// third party's, so the contract is exercised by the code that uses it most.

// Both implement the optional service and firmware too (Ironic refuses them below 1.87 / 1.86 itself).
const ALL: readonly Operation[] = ['register', 'inspect', 'prepare', 'provision', 'deprovision', 'adopt', 'powerOn', 'powerOff', 'hardwareState', 'detach', 'delete', 'service', 'firmware'];

export function fixtureBuiltin(defaultLatencyMs: number): BareMetalHostPlugin {
  return {
    name: 'fixture',
    contractVersion: PROVISIONER_CONTRACT_VERSION,
    resource: 'BareMetalHost',
    description: 'in-process simulated hardware with configurable latency (tests, benchmarks, demo)',
    supports: { operations: ALL },
    create(ctx) {
      const raw = ctx.options['latencyMs'];
      // Number('') is 0: an empty fixture.latencyMs= silently ran without latency.
      const latency = raw === undefined ? defaultLatencyMs : String(raw).trim() === '' ? Number.NaN : Number(raw);
      if (!Number.isInteger(latency) || latency < 0) throw new Error(`option latencyMs: must be a whole number of milliseconds, got "${raw}"`);
      if (latency > MAX_TIMER_MS) throw new Error(`option latencyMs: must be at most ${MAX_TIMER_MS} milliseconds (what a timer holds), got "${raw}"`);
      return fixtureProvisioner(latency);
    },
  };
}

export function ironicBuiltin(flags: IronicFlags, env: Env): BareMetalHostPlugin {
  return {
    name: 'ironic',
    contractVersion: PROVISIONER_CONTRACT_VERSION,
    resource: 'BareMetalHost',
    description: 'OpenStack Ironic, as the baremetal-operator drives it',
    // BMO's own BMC types need no declaration (admission knows them); declared schemes are extra
    // ones a host may use. This listed ilo4, ilo5, irmc and idrac (WSMAN), which BMO dropped and
    // nothing here drives: `node` and `demo -f` admitted hosts on them that `validate` refused.
    supports: { operations: ALL },
    async create(ctx) {
      const urls = flags.urls.length > 0 ? flags.urls : env.IRONIC_ENDPOINT ? [env.IRONIC_ENDPOINT] : [];
      if (urls.length === 0) throw new Error('no Ironic endpoint: pass --ironic URL or set IRONIC_ENDPOINT');
      return ironicProvisioner({ ...flags, urls }, env, ctx.log);
    },
  };
}

export function maasBuiltin(connect: () => Promise<MaasDriver>): MaasMachinePlugin {
  return {
    name: 'maas',
    contractVersion: PROVISIONER_CONTRACT_VERSION,
    resource: 'MaasMachine',
    description: 'Canonical MAAS 2.0 API, as the Cluster API MAAS provider drives it',
    supports: { operations: ['allocate', 'deploy', 'release', 'powerOn', 'powerOff', 'dns'] },
    create: connect,
  };
}
