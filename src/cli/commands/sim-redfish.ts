import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { faultFromKind, FAULT_KINDS, startRedfishSim } from '../../sim/redfish/index.ts';
import type { SimFaults, SimSystemSpec } from '../../sim/redfish/index.ts';
import { CliError, readFailure } from '../cli-error.ts';
import { intFlag, MAX_TIMER_MS } from '../config.ts';
import { untilSignalled } from '../signals.ts';

// `metalfleet sim redfish`: N simulated BMCs on one loopback server, for a real Ironic (its
// `redfish` hardware type), Metal3 or sushy to drive. One line per system on stdout carries the
// password, because the user needs it; stderr and errors never do.

interface SimRedfishFlags {
  systems: number;
  port?: number;
  username?: string;
  passwordFile?: string;
  fault?: string[];
  tls?: boolean;
}

function portFlag(value: string): number {
  const n = intFlag('--port', 0)(value);
  if (n > 65_535) throw new CliError(`--port: expected a port from 0 to 65535, got "${value}"`, 2);
  return n;
}

function systemsFlag(value: string): number {
  const n = intFlag('--systems', 1)(value);
  if (n > 1_000) throw new CliError(`--systems: at most 1000, got ${n}`, 2);
  return n;
}

/** `--fault node-1=power-stuck --fault node-0=slow:200` → faults by system id. */
export function parseFaultFlags(specs: readonly string[], ids: readonly string[]): Map<string, Partial<SimFaults>> {
  const out = new Map<string, Partial<SimFaults>>();
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    const id = spec.slice(0, eq);
    const fault = eq > 0 ? faultFromKind(spec.slice(eq + 1)) : undefined;
    if (!fault) throw new CliError(`--fault ${spec}: expected SYSTEM=KIND with KIND one of ${FAULT_KINDS.join(', ')} (slow takes :MS, e.g. node-0=slow:250)`, 2);
    if (fault.latencyMs !== undefined && fault.latencyMs > MAX_TIMER_MS) throw new CliError(`--fault ${spec}: slow takes at most ${MAX_TIMER_MS} ms`, 2);
    if (!ids.includes(id)) throw new CliError(`--fault ${spec}: no system "${id}" (systems are ${ids[0]} to ${ids[ids.length - 1]})`, 2);
    out.set(id, { ...out.get(id), ...fault });
  }
  return out;
}

async function readPassword(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`--password-file ${file}: cannot read: ${readFailure(err)}`, 1);
  }
  const password = text.replace(/\r?\n$/, '');
  if (password === '' || password.includes('\n')) throw new CliError(`--password-file ${file}: expected one non-empty line`, 1);
  return password;
}

const HELP_AFTER = `
Prints one line per system on stdout:
  id=node-0 address=redfish+http://127.0.0.1:PORT/redfish/v1/Systems/node-0 username=admin macs=52:54:00:..,52:54:00:.. uuid=... password=...
(the password runs to the end of the line)
For Ironic: driver_info redfish_address=http://127.0.0.1:PORT redfish_system_id=/redfish/v1/Systems/node-0.
With --tls the BMCs speak HTTPS (address=redfish://…, redfish_address=https://…) with a self-signed
certificate printed on stderr: set redfish_verify_ca=false (Metal3: disableCertificateVerification).
Each system has its own random password unless --password-file gives one for all.
Fault kinds: refuse-credentials, slow[:MS] (default 1000), power-stuck, 5xx.

Examples:
  metalfleet sim redfish --systems 4
  metalfleet sim redfish --systems 2 --port 8000 --password-file bmc.pass --fault node-1=power-stuck
  metalfleet sim redfish --systems 2 --tls
`;

export function registerSimRedfish(sim: Command): void {
  sim
    .command('redfish')
    .description('simulated Redfish BMCs (power, boot, BIOS, RAID, virtual media, firmware update) on 127.0.0.1 until SIGINT/SIGTERM')
    .option('--systems <n>', 'how many systems (node-0 … node-N-1)', systemsFlag, 1)
    .option('--port <n>', 'listen on this port (default: a free one)', portFlag)
    .option('--username <name>', 'the BMC user name of every system (default admin)')
    .option('--password-file <file>', 'one password for every system, read from this file (default: a random password per system)')
    .option('--tls', 'serve HTTPS with a self-signed certificate made at start (addresses become redfish://…)')
    .option('--fault <system=kind...>', 'a fault for one system: refuse-credentials, slow[:MS], power-stuck or 5xx (repeatable)')
    .addHelpText('after', HELP_AFTER)
    .action(async (flags: SimRedfishFlags) => {
      const ids = Array.from({ length: flags.systems }, (_, i) => `node-${i}`);
      const faults = parseFaultFlags(flags.fault ?? [], ids);
      if (flags.username !== undefined && (flags.username === '' || flags.username.length > 64)) throw new CliError('--username: expected 1 to 64 characters', 2);
      const password = flags.passwordFile === undefined ? undefined : await readPassword(flags.passwordFile);
      const systems: SimSystemSpec[] = ids.map((id) => ({ id, ...(faults.has(id) ? { faults: faults.get(id) } : {}) }));
      let sim;
      try {
        sim = await startRedfishSim({ systems, port: flags.port, tls: flags.tls === true, ...(flags.username === undefined ? {} : { username: flags.username }), ...(password === undefined ? {} : { password }) });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new CliError(`--port ${flags.port}: already in use on 127.0.0.1`, 1);
        throw err;
      }
      // The password comes last and runs to the end of the line, so a file's password may hold spaces.
      // Listen for the signals before printing: whoever reads these lines may signal at once.
      const signalled = untilSignalled();
      const lines = sim.systems.map((s) => `id=${s.id} address=${s.address} username=${s.username} macs=${s.macs.join(',')} uuid=${s.uuid} password=${s.password}\n`);
      process.stdout.write(lines.join(''));
      const faulty = faults.size === 0 ? '' : `; faults on ${[...faults.keys()].join(', ')}`;
      // A self-signed certificate: clients verify with this PEM or turn verification off.
      const tls = sim.certificate === null ? '' : `; self-signed certificate (disable verification: Ironic redfish_verify_ca=false, Metal3 disableCertificateVerification: true):\n${sim.certificate}`;
      process.stderr.write(`metalfleet sim redfish: ${sim.systems.length} systems at ${sim.url}/redfish/v1${faulty}; stop with Ctrl-C${tls}\n`);
      await signalled;
      await sim.stop();
    });
}
