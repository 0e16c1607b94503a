import { z } from 'zod';
import type { Transport } from '../ports/index.ts';
import { BusError } from '../ports/index.ts';
import { errorMessage } from '../api/index.ts';

// Account info is answered by the JetStream meta leader. A clustered server that has lost its
// quorum (no meta leader) answers at once with 503 / 10008 "JetStream system temporarily
// unavailable"; a server without JetStream has no responder. Seen on nats-server 2.9.10.
const ACCOUNT_INFO = '$JS.API.INFO';
const CLUSTER_NOT_AVAILABLE = 10008;

const AccountInfoReply = z.object({
  error: z.object({ code: z.number(), err_code: z.number().optional(), description: z.string().optional() }).optional(),
});

/**
 * Asks the JetStream API whether it can serve requests now. Null when it answered without an
 * error; otherwise why not, in words naming NATS JetStream and the call.
 */
export async function askJetStream(transport: Pick<Transport, 'request'>, timeoutMs: number): Promise<string | null> {
  let data: Uint8Array;
  try {
    data = await transport.request(ACCOUNT_INFO, new Uint8Array(), { timeoutMs });
  } catch (err) {
    if (err instanceof BusError && err.kind === 'timeout') return `NATS JetStream did not answer ${ACCOUNT_INFO} within ${timeoutMs} ms (the server is out of reach, or its cluster has no quorum)`;
    if (err instanceof BusError && err.kind === 'noResponders') return `NATS JetStream is not enabled on the server (${ACCOUNT_INFO} has no responder)`;
    return `NATS JetStream could not be asked (${ACCOUNT_INFO}): ${errorMessage(err)}`;
  }
  let parsed: z.infer<typeof AccountInfoReply>;
  try {
    parsed = AccountInfoReply.parse(JSON.parse(new TextDecoder().decode(data)));
  } catch {
    return `NATS JetStream answered ${ACCOUNT_INFO} with something that is not an account info reply`;
  }
  const error = parsed.error;
  if (!error) return null;
  const code = error.err_code !== undefined ? `${error.code}/${error.err_code}` : String(error.code);
  const hint = error.err_code === CLUSTER_NOT_AVAILABLE ? ' (no quorum: a clustered JetStream needs a majority of its servers up and routed)' : '';
  return `NATS JetStream answered ${ACCOUNT_INFO} with ${code}: ${error.description ?? 'no description'}${hint}`;
}
