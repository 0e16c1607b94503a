import type { UserStep } from './steps.ts';

// The API's own check of clean_steps / service_steps before anything reaches the conductor:
// ironic/api/controllers/v1/node.py _STEPS_SCHEMA and _check_steps. Ironic answers 400
// "Invalid clean_steps: <jsonschema message>" followed by the schema and instance jsonschema
// prints; this server answers the first line only.

// steps.py CLEANING_INTERFACE_PRIORITY: 21.4.0 has these five (seen in its 400 answer);
// 23.0.0 lists vendor and firmware too.
function interfaces(serverMax: number): string[] {
  const base = ['power', 'management', 'deploy', 'bios', 'raid'];
  return serverMax >= 86 ? ['vendor', 'power', 'management', 'firmware', 'deploy', 'bios', 'raid'] : base;
}

const ALLOWED = new Set(['interface', 'step', 'args', 'execute_on_child_nodes', 'limit_child_node_execution']);

/** null when the steps pass; else the 400 text. */
export function checkSteps(steps: unknown, kind: 'clean' | 'service', serverMax: number): string | null {
  const bad = (why: string): string => `Invalid ${kind}_steps: ${why}`;
  if (!Array.isArray(steps)) return bad(`${JSON.stringify(steps)} is not of type 'array'`);
  for (const s of steps as unknown[]) {
    if (typeof s !== 'object' || s === null || Array.isArray(s)) return bad(`${JSON.stringify(s)} is not of type 'object'`);
    const step = s as Partial<UserStep>;
    for (const req of ['interface', 'step'] as const) if (!(req in step)) return bad(`'${req}' is a required property`);
    const extra = Object.keys(step).filter((k) => !ALLOWED.has(k));
    if (extra.length > 0) return bad(`Additional properties are not allowed (${extra.map((k) => `'${k}'`).join(', ')} ${extra.length === 1 ? 'was' : 'were'} unexpected)`);
    const ifaces = interfaces(serverMax);
    if (!ifaces.includes(String(step.interface))) return bad(`'${String(step.interface)}' is not one of [${ifaces.map((i) => `'${i}'`).join(', ')}]`);
    if (typeof step.step !== 'string') return bad(`${JSON.stringify(step.step)} is not of type 'string'`);
    if (step.step.length < 1) return bad(`'' is too short`);
    if (step.args !== undefined && (typeof step.args !== 'object' || step.args === null || Array.isArray(step.args))) return bad(`${JSON.stringify(step.args)} is not of type 'object'`);
  }
  return null;
}
