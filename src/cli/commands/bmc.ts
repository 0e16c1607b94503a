import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { parseBmcAddress, redactUrl, type BmcAccess } from '../../api/bmc/index.ts';
import { CliError } from '../cli-error.ts';

// `metalfleet bmc ADDRESS [--json]`: what a spec.bmc.address means — driver, Ironic interfaces,
// whether a boot MAC and a provisioning network are needed. The address is echoed redacted.

// Shown instead of credentials: driver_info keys without their values.
const PLACEHOLDER = { username: '<username from Secret>', password: '<password from Secret>' };

function describe(address: string, bmc: BmcAccess) {
  return {
    address: redactUrl(address),
    scheme: bmc.scheme,
    type: bmc.type,
    transport: bmc.transport,
    host: bmc.host,
    port: bmc.port,
    path: bmc.path,
    driver: bmc.driver,
    interfaces: bmc.interfaces,
    bootMac: bmc.needsMac ? 'always' : 'when inspection is disabled',
    needsMac: bmc.needsMac,
    supportsVirtualMedia: bmc.supportsVirtualMedia,
    supportsSecureBoot: bmc.supportsSecureBoot,
    supportsOutOfBandInspect: bmc.supportsOutOfBandInspect,
    needsProvisioningNetwork: bmc.needsProvisioningNetwork,
    driverInfo: bmc.driverInfo(PLACEHOLDER, { disableCertificateVerification: false }),
  };
}

function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}

function text(d: ReturnType<typeof describe>): string {
  const interfaces = Object.entries(d.interfaces).map(([k, v]) => `${k}=${v}`).join(' ');
  const rows: Array<[string, string]> = [
    ['address', d.address],
    ['type', d.type],
    ['scheme', d.scheme],
    ['host', d.host],
    ['port', d.port === null ? (d.driver === 'ipmi' ? 'default (623)' : 'default') : String(d.port)],
    ['path', d.path === '' ? '(none)' : d.path],
    ['driver', d.driver],
    ['interfaces', interfaces],
    ['boot MAC needed', d.bootMac],
    ['virtual media', d.supportsVirtualMedia ? 'yes (ISO preprovisioning image, no provisioning slot needed)' : 'no'],
    ['secure boot', yesNo(d.supportsSecureBoot)],
    ['out-of-band inspection', yesNo(d.supportsOutOfBandInspect)],
    ['provisioning network', d.needsProvisioningNetwork ? 'needed' : 'not needed'],
  ];
  if (d.driver !== 'ipmi') rows.splice(3, 0, ['transport', d.transport ?? 'https (default)']);
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  return rows.map(([k, v]) => `${`${k}:`.padEnd(width)}${v}`).join('\n');
}

export function register(program: Command): void {
  program
    .command('bmc')
    .description(descriptionOf('bmc'))
    .argument('<address>', 'a spec.bmc.address, e.g. redfish-virtualmedia://192.0.2.10/redfish/v1/Systems/1')
    .option('--json', 'print one JSON object')
    .action((address: string, opts: { json?: boolean }) => {
      const parsed = parseBmcAddress(address);
      if (!parsed.ok) {
        if (opts.json) {
          process.stdout.write(`${JSON.stringify({ error: { code: parsed.error.code, message: parsed.error.message, address: parsed.error.address } })}\n`);
          process.exitCode = 1;
          return;
        }
        throw new CliError(parsed.error.message);
      }
      const d = describe(address, parsed.bmc);
      process.stdout.write(opts.json ? `${JSON.stringify(d)}\n` : `${text(d)}\n`);
    });
}
