// @ts-check
/* global setTimeout */
// An example metalfleet provisioner plugin, built as a third party would build one: plain ESM,
// no build step, no runtime dependency on metalfleet (only its types, for the checker). It drives
// "lab" machines whose only control is an outlet on a networked PDU, addressed as
// lab://<pdu>/<outlet>: registering checks the address, provisioning power-cycles the outlet and
// waits while the machine network-boots its image.
//
// The backend here is an in-memory model of the PDU so the example runs anywhere; a real plugin
// would call the PDU's API where this one flips `outlet.on`.

/** @typedef {import('metalfleet/plugin').Provisioner} Provisioner */
/** @typedef {import('metalfleet/plugin').HostData} HostData */
/** @typedef {import('metalfleet/plugin').OpResult} OpResult */
/** @typedef {import('metalfleet/plugin').PluginContext} PluginContext */

const ADDRESS = /^lab:\/\/([a-z0-9.-]+)\/(\d{1,3})$/;

/** @param {Record<string, string>} options */
function parseOptions(options) {
  const provisionMs = Number(options.provisionMs ?? '20');
  if (!Number.isInteger(provisionMs) || provisionMs < 0) {
    throw new Error(`option provisionMs: must be a whole number of milliseconds, got "${options.provisionMs}"`);
  }
  return { provisionMs };
}

/** @param {PluginContext} ctx @returns {Provisioner & { outlets: Map<string, { on: boolean; image: string | null }> }} */
function createLabProvisioner(ctx) {
  const { provisionMs } = parseOptions(ctx.options);
  /** Outlets by host key: the PDU's view of each machine. */
  const outlets = new Map();
  /** @param {HostData} host */
  const outletOf = (host) => outlets.get(host.key);
  /** @param {string} message @returns {OpResult} */
  const failed = (message) => ({ kind: 'failed', message, retryAfterMs: null });
  /** @type {OpResult} */
  const done = { kind: 'done' };
  /** @param {HostData} host @param {() => OpResult} act @returns {Promise<OpResult>} */
  const registered = async (host, act) => (outletOf(host) ? act() : { kind: 'needsRegistration' });

  return {
    name: 'lab',
    outlets,
    capacity(host) {
      // One pool per PDU: power-cycling many outlets at once trips its breaker.
      const pdu = ADDRESS.exec(host.spec.bmc?.address ?? '')?.[1] ?? 'unknown';
      return { pool: `lab:${pdu}`, exempt: false };
    },
    async register(host) {
      const address = host.spec.bmc?.address ?? '';
      const match = ADDRESS.exec(address);
      if (!match) return failed(`BMC address "${address}" is not lab://<pdu>/<outlet>`);
      if (Number(match[2]) > 48) return failed(`outlet ${match[2]} does not exist: the PDU has outlets 1 to 48`);
      if (!outlets.has(host.key)) outlets.set(host.key, { on: false, image: null });
      ctx.log.info({ host: host.key, pdu: match[1] }, 'lab machine registered');
      return { kind: 'done', provisionerId: `lab-${match[1]}-${match[2]}` };
    },
    inspect: (host) => registered(host, () => done),
    prepare: (host) => registered(host, () => done),
    async provision(host) {
      const outlet = outletOf(host);
      if (!outlet) return { kind: 'needsRegistration' };
      // Power-cycle into network boot, then wait for the install to finish.
      outlet.on = false;
      await new Promise((resolve) => setTimeout(resolve, provisionMs));
      outlet.on = true;
      outlet.image = host.spec.image?.url ?? null;
      return { kind: 'done', poweredOn: true };
    },
    deprovision: (host) => registered(host, () => {
      const outlet = outletOf(host);
      if (outlet) outlet.image = null;
      return done;
    }),
    adopt: (host) => registered(host, () => done),
    powerOn: (host) => registered(host, () => {
      const outlet = outletOf(host);
      if (outlet) outlet.on = true;
      return done;
    }),
    powerOff: (host) => registered(host, () => {
      const outlet = outletOf(host);
      if (outlet) outlet.on = false;
      return done;
    }),
    hardwareState: (host) => registered(host, () => ({ kind: 'done', poweredOn: outletOf(host)?.on ?? false })),
    detach: async () => done,
    async delete(host) {
      outlets.delete(host.key);
      return done;
    },
  };
}

/** @type {import('metalfleet/plugin').BareMetalHostPlugin} */
const plugin = {
  name: 'lab',
  contractVersion: 1,
  resource: 'BareMetalHost',
  description: 'lab machines power-cycled through a networked PDU (lab://<pdu>/<outlet>)',
  supports: {
    operations: ['register', 'inspect', 'prepare', 'provision', 'deprovision', 'adopt', 'powerOn', 'powerOff', 'hardwareState', 'detach', 'delete'],
    bmcSchemes: ['lab'],
  },
  create: createLabProvisioner,
};

export default plugin;
export { createLabProvisioner };
