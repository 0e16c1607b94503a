// Runs one of the python3-sushy check scripts (test/sim/redfish/*.py) against a Redfish simulator:
// the BMC password goes in the environment (SIM_PASSWORD), never on the command line, and sushy is
// the system's (with the overlay Ironic's own runs use). A missing sushy is a failure naming it.
import { execFile } from 'node:child_process';
import { SYSTEM_PYTHON, withSushyOverlay } from '../../src/sim/ironic/index.ts';

export async function runSushyScript(script: string, args: readonly string[], env: Record<string, string>): Promise<string> {
  const withOverlay = await withSushyOverlay({ ...process.env, ...env });
  return new Promise<string>((resolve, reject) => {
    execFile(SYSTEM_PYTHON, [script, ...args], { encoding: 'utf8', timeout: 100_000, env: withOverlay }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${script} failed (${err.message}); python3-sushy (apt) must be installed. stderr: ${stderr}`));
      else resolve(stdout);
    });
  });
}
