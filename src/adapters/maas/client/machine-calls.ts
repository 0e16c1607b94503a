import type { Call, Method, Send } from './call.ts';
import { invalid, orNullOn404, parse } from './call.ts';
import { checkCount, checkSystemId } from './checks.ts';
import type { FormPairs, FormValue } from './form.ts';
import { formPairs } from './form.ts';
import { MaasMachine, MaasMachineList } from './machine.ts';
import { userDataSecrets } from './redact.ts';

// The calls on /machines/: allocation, the machine itself and its ops.

export interface AllocateConstraints {
  cpuCount?: number;
  /** MB. */
  memMb?: number;
  zone?: string;
  pool?: string;
  /** All must exist in MAAS and all must match; sent as repeated `tags`. */
  tags?: string[];
  /** Leave out machines composed in a VM host (HCP sets it). */
  notPod?: boolean;
  /** Leave out machines composed in a VM host of this type (lxd, virsh); HCP sends lxd. */
  notPodType?: string;
  /** MAAS keeps it on the machine until release; MachineQuery.agentName finds the machine by it. */
  agentName?: string;
}

export interface MachineQuery {
  hostname?: string[];
  zone?: string;
  pool?: string;
  /** Only machines allocated with this agent_name (MAAS matches it exactly). */
  agentName?: string;
  /** Only these system_ids (sent as repeated `id`); MAAS still lists only what the key may view. */
  ids?: string[];
}

export interface MachineUpdate {
  /** Bytes, or a whole number with a K/M/G/T suffix (powers of 1000); 0 disables swap (admin only). */
  swapSize?: number | string;
  hostname?: string;
  /** The oldest kernel the machine may be deployed with (MAAS validates it against its kernels; '' clears it). */
  minHweKernel?: string;
}

export interface DeployOptions {
  /** Standard base64, as CAPMAAS encodes the bootstrap secret's `value`. */
  userDataBase64?: string;
  /** MAAS derives the OS from distro_series and ignores this; it is sent as CAPMAAS does. */
  osystem?: string;
  /** A release (jammy), or osystem/release (ubuntu/jammy, custom/my-image): MAAS resolves either. */
  distroSeries?: string;
  /** The kernel to install (hwe-22.04, ga-22.04, ...); MAAS picks one at or above the machine's min_hwe_kernel when unset. */
  hweKernel?: string;
  ephemeralDeploy?: boolean;
  /** MAAS's hardware sync agent; MAAS refuses it for images that are not Linux. */
  enableHwSync?: boolean;
  comment?: string;
}

export interface ReleaseOptions {
  /** Unset: MAAS's global enable_disk_erasing_on_release decides (CAPMAAS sends neither). */
  erase?: boolean;
  /** Wipe only the start and end of each disk; MAAS takes it alone as an erase too. */
  quickErase?: boolean;
  /** Use the drives' own secure erase where they have it; MAAS takes it alone as an erase too. */
  secureErase?: boolean;
  force?: boolean;
  comment?: string;
}

export interface MachineCalls {
  /** POST /machines/ op=allocate; 409 → MaasError 'no-match'. */
  allocate(c: AllocateConstraints): Promise<MaasMachine>;
  /** null when MAAS has no such machine (404). */
  getMachine(systemId: string): Promise<MaasMachine | null>;
  listMachines(q?: MachineQuery): Promise<MaasMachine[]>;
  /** PUT /machines/{id}/; swap_size needs an admin key (403 'forbidden' otherwise). */
  updateMachine(systemId: string, f: MachineUpdate): Promise<MaasMachine>;
  deploy(systemId: string, o: DeployOptions): Promise<MaasMachine>;
  release(systemId: string, o?: ReleaseOptions): Promise<MaasMachine>;
  /** POST /machines/{id}/op-power_on (the path form, as maas-client-go sends it). */
  powerOn(systemId: string, o?: { comment?: string }): Promise<MaasMachine>;
  /**
   * POST /machines/{id}/op-power_off (the path form, as for power_on). MAAS answers before the
   * power action completes; `stopMode` soft asks the OS to shut down first where the power driver
   * can (MAAS's default and anything else is hard). Owner or admin only (403 otherwise).
   */
  powerOff(systemId: string, o?: { stopMode?: 'soft' | 'hard'; comment?: string }): Promise<MaasMachine>;
  /**
   * POST /machines/{id}/ op=set_owner_data: sets the keys given, removes those given as '' and
   * keeps the rest; MAAS drops all owner data when the machine is released.
   */
  setOwnerData(systemId: string, data: Readonly<Record<string, string>>): Promise<MaasMachine>;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
// MAAS takes a size as whole bytes or a whole number with a K, M, G or T suffix (powers of 1000).
const SIZE = /^\d+[KMGT]?$/i;
// MAAS splits a tags value at commas and spaces, so such a tag would silently become several.
const TAG = /^[^\s,]+$/;

function machineCall(method: Method, systemId: string, route: string, extra: { suffix?: string; op?: string; form?: FormPairs; secrets?: readonly string[] } = {}): Call {
  const { suffix = '', ...rest } = extra;
  return { method, path: `/machines/${encodeURIComponent(String(systemId))}/${suffix}`, route, ...rest };
}

export function machineCalls(request: Send): MachineCalls {
  const calls: MachineCalls = {
    async allocate(k) {
      const fields: Record<string, FormValue> = {
        op: 'allocate',
        cpu_count: k.cpuCount,
        mem: k.memMb,
        zone: k.zone,
        pool: k.pool,
        tags: k.tags !== undefined && k.tags.length > 0 ? k.tags : undefined,
        not_pod: k.notPod === true ? true : undefined,
        not_pod_type: k.notPodType,
        agent_name: k.agentName,
      };
      const c: Call = { method: 'POST', path: '/machines/', route: 'POST /machines/ op=allocate', op: 'allocate', form: formPairs(fields), isAllocate: true };
      checkCount(c, 'cpuCount', k.cpuCount);
      checkCount(c, 'memMb', k.memMb);
      const badTags = (k.tags ?? []).filter((t) => !TAG.test(t));
      if (badTags.length > 0) throw invalid(c, `tags must be single MAAS tag names (no spaces or commas); not: ${badTags.map((t) => JSON.stringify(t)).join(', ')}`);
      return parse(c, MaasMachine, await request(c));
    },

    async getMachine(systemId) {
      const c = machineCall('GET', systemId, 'GET /machines/{id}/');
      checkSystemId(c, systemId);
      return orNullOn404(async () => parse(c, MaasMachine, await request(c)));
    },

    async listMachines(q = {}) {
      const query = formPairs({ hostname: q.hostname !== undefined && q.hostname.length > 0 ? q.hostname : undefined, zone: q.zone, pool: q.pool, agent_name: q.agentName, id: q.ids !== undefined && q.ids.length > 0 ? q.ids : undefined });
      const c: Call = { method: 'GET', path: '/machines/', route: 'GET /machines/', query };
      return parse(c, MaasMachineList, await request(c));
    },

    async updateMachine(systemId, f) {
      const c = machineCall('PUT', systemId, 'PUT /machines/{id}/', {
        form: formPairs({ swap_size: f.swapSize, hostname: f.hostname, min_hwe_kernel: f.minHweKernel }),
      });
      checkSystemId(c, systemId);
      if (f.swapSize !== undefined && !SIZE.test(String(f.swapSize))) throw invalid(c, `swapSize must be bytes or a size like 2G, not ${JSON.stringify(String(f.swapSize))}`);
      if (f.hostname !== undefined && f.hostname.trim() === '') throw invalid(c, 'hostname must not be empty');
      return parse(c, MaasMachine, await request(c));
    },

    async deploy(systemId, d) {
      const userData = d.userDataBase64?.replace(/\s+/g, '');
      const c = machineCall('POST', systemId, 'POST /machines/{id}/ op=deploy', {
        op: 'deploy',
        form: formPairs({
          op: 'deploy',
          user_data: userData,
          osystem: d.osystem,
          distro_series: d.distroSeries,
          hwe_kernel: d.hweKernel,
          ephemeral_deploy: d.ephemeralDeploy,
          enable_hw_sync: d.enableHwSync,
          comment: d.comment,
        }),
        secrets: userData === undefined || userData === '' ? [] : userDataSecrets(userData),
      });
      checkSystemId(c, systemId);
      if (userData !== undefined && (!BASE64.test(userData) || userData.length % 4 !== 0)) {
        throw invalid(c, 'userDataBase64 is not standard base64 (encode the cloud-init user data with base64, not base64url)');
      }
      return parse(c, MaasMachine, await request(c));
    },

    async setOwnerData(systemId, data) {
      const c = machineCall('POST', systemId, 'POST /machines/{id}/ op=set_owner_data', {
        op: 'set_owner_data',
        form: [['op', 'set_owner_data'], ...formPairs(data).filter(([k]) => k !== 'op')],
      });
      checkSystemId(c, systemId);
      return parse(c, MaasMachine, await request(c));
    },

    async release(systemId, r = {}) {
      const c = machineCall('POST', systemId, 'POST /machines/{id}/ op=release', {
        op: 'release',
        form: formPairs({ op: 'release', erase: r.erase, quick_erase: r.quickErase, secure_erase: r.secureErase, force: r.force, comment: r.comment }),
      });
      checkSystemId(c, systemId);
      return parse(c, MaasMachine, await request(c));
    },

    async powerOn(systemId, p = {}) {
      // The comment goes in the body once-encoded; maas-client-go escapes it twice (capmaas §2.7).
      const c = machineCall('POST', systemId, 'POST /machines/{id}/op-power_on', {
        suffix: 'op-power_on',
        form: formPairs({ comment: p.comment }),
      });
      checkSystemId(c, systemId);
      return parse(c, MaasMachine, await request(c));
    },

    async powerOff(systemId, p = {}) {
      const c = machineCall('POST', systemId, 'POST /machines/{id}/op-power_off', {
        suffix: 'op-power_off',
        form: formPairs({ stop_mode: p.stopMode, comment: p.comment }),
      });
      checkSystemId(c, systemId);
      const answer = await request(c);
      // MAAS answers null when the power driver cannot stop the machine (e.g. manual): the
      // machine as it is then is the answer.
      if (answer.json === null) {
        const m = await calls.getMachine(systemId);
        if (m) return m;
      }
      return parse(c, MaasMachine, answer);
    },
  };
  return calls;
}
