import { pyJson } from './py-json.ts';

// Ironic's error answers. Two shapes reach a client, both wrapped as {"error_message": "<JSON
// text>"} by ironic/api/hooks.py or middleware/parsable_error.py:
// - wsme/ironic exceptions (ironic/api/method.py, format_exception): {"faultcode": "Client",
//   "faultstring": ..., "debuginfo": null} for 4xx, "Server" for 5xx;
// - pecan.abort and webob HTTP errors (version negotiation, unknown routes):
//   {"code": 406, "title": "Not Acceptable", "description": ...}.
// Seen on Ironic 21.4: both shapes, and the pecan one carries no version headers except the
// range headers of a 406 (ironic/api/controllers/v1/__init__.py passes them to HTTPNotAcceptable).

export type Body = { readonly kind: 'fault'; readonly faultstring: string } | { readonly kind: 'pecan'; readonly title: string; readonly description: string };

/** An answer that is not a success; thrown by handlers, written by the server. */
export class IronicFault extends Error {
  constructor(
    readonly status: number,
    readonly body: Body,
    /** False for pecan aborts: the version hook did not run, so no version headers. */
    readonly versioned = true,
  ) {
    super(body.kind === 'fault' ? body.faultstring : body.description);
  }
}

const TITLES: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed', 406: 'Not Acceptable', 409: 'Conflict' };

export function fault(status: number, faultstring: string): IronicFault {
  return new IronicFault(status, { kind: 'fault', faultstring });
}

export function pecanAbort(status: number, description = ''): IronicFault {
  return new IronicFault(status, { kind: 'pecan', title: TITLES[status] ?? 'Error', description }, false);
}

export function errorBody(f: IronicFault): string {
  const inner = f.body.kind === 'fault'
    ? { faultcode: f.status >= 500 ? 'Server' : 'Client', faultstring: f.body.faultstring, debuginfo: null }
    : { code: f.status, title: f.body.title, description: f.body.description };
  return pyJson({ error_message: pyJson(inner) });
}

// The exception texts, from ironic/common/exception.py.
export const errors = {
  notAcceptable: () => fault(406, 'Request not acceptable.'), // NotAcceptable
  nodeNotFound: (node: string) => fault(404, `Node ${node} could not be found.`), // NodeNotFound
  portNotFound: (port: string) => fault(404, `Port ${port} could not be found.`),
  inventoryNotFound: (nodeId: number) => fault(404, `Node inventory record for node ${nodeId} could not be found.`), // NodeInventoryNotFound
  duplicateName: (name: string) => fault(409, `A node with name ${name} already exists.`), // DuplicateName
  macExists: (mac: string) => fault(409, `A port with MAC address ${mac} already exists.`), // MACAlreadyExists
  // InvalidStateRequested
  invalidState: (action: string, node: string, state: string | null) => fault(400, `The requested action "${action}" can not be performed on node "${node}" while it is in state "${state ?? 'None'}".`),
  // NodeLocked
  locked: (node: string, host: string) => fault(409, `Node ${node} is locked by host ${host}, please retry after the current operation is completed.`),
  // NodeInMaintenance
  inMaintenance: (op: string, node: string) => fault(400, `The ${op} operation can't be performed on node ${node} because it's in maintenance mode.`),
} as const;
