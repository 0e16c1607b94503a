import type { CallArgs, OpResult } from '../machines/bmh/index.ts';
import type { HostData, Provisioner } from './provisioner.ts';

// The one place an operation name becomes a provisioner method.
export function invoke(p: Provisioner, host: HostData, args: CallArgs): Promise<OpResult> {
  switch (args.op) {
    case 'register': return p.register(host, args);
    case 'inspect': return p.inspect(host, args);
    case 'prepare': return p.prepare(host, args);
    case 'provision': return p.provision(host, args);
    case 'deprovision': return p.deprovision(host, args);
    case 'adopt': return p.adopt(host, args);
    case 'powerOn': return p.powerOn(host, args);
    case 'powerOff': return p.powerOff(host, args);
    case 'hardwareState': return p.hardwareState(host, args);
    case 'detach': return p.detach(host, args);
    case 'delete': return p.delete(host, args);
    case 'service':
      return p.service ? p.service(host, args) : Promise.resolve(cannot(p, 'service hosts (firmware changes on a provisioned host)'));
    case 'firmware':
      // Absent: the backend has no firmware to tell (the contract's word), which is no failure.
      return p.firmware ? p.firmware(host, args) : Promise.resolve(NO_FIRMWARE);
  }
}

// A read that found nothing to tell: the host's companions stay as they are, nothing is warned.
const NO_FIRMWARE: OpResult = Object.freeze({ kind: 'done' });

// Not retried: the provisioner will not learn to between attempts; the user picks another backend.
function cannot(p: Provisioner, what: string): OpResult {
  return { kind: 'failed', message: `the ${p.name} provisioner cannot ${what}`, retryAfterMs: null };
}
