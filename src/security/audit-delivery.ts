// Whether a message that reached the audit reader's inbox was delivered by the reader's own
// consumer. Anyone allowed to create consumers on the stream can create a push consumer that
// delivers into another reader's inbox (nats-server does not check a deliver subject), so a
// message is taken only when its reply subject is JetStream's ack subject naming the reader's
// stream and consumer, and its stream sequence is above the last one taken. Only the server
// writes that reply subject on a delivery; a client cannot publish into the inbox itself.
//
// The ordered consumer of @nats-io/jetstream would not do this for us: it resets when the
// delivery sequence jumps but never looks at which consumer the ack subject names, so another
// consumer delivering 1, 2, 3 into the same inbox would pass.

export interface DeliveryCheck {
  readonly stream: string;
  readonly consumer: string;
  /** The stream sequence of the last message taken; 0 before the first. */
  readonly afterSeq: number;
}

export type Delivery =
  | { readonly ok: true; readonly streamSeq: number; readonly pending: number }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads `$JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>` and its newer form
 * `$JS.ACK.<domain>.<account>.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>.<token>`.
 */
export function checkDelivery(reply: string | undefined, expect: DeliveryCheck): Delivery {
  if (reply === undefined) return { ok: false, reason: 'no reply subject: published into the inbox, not delivered by JetStream' };
  const tokens = reply.split('.');
  if (tokens[0] !== '$JS' || tokens[1] !== 'ACK' || (tokens.length !== 9 && tokens.length !== 12)) {
    return { ok: false, reason: `reply subject ${shown(reply)} is not a JetStream delivery` };
  }
  const at = tokens.length === 9 ? 2 : 4;
  const [stream, consumer, , sseq, , , pending] = tokens.slice(at);
  if (stream !== expect.stream || consumer !== expect.consumer) {
    return { ok: false, reason: `delivered by consumer ${shown(consumer ?? '')} of stream ${shown(stream ?? '')}, not by this reader's ${expect.consumer} of ${expect.stream}` };
  }
  const streamSeq = count(sseq);
  const left = count(pending);
  if (streamSeq === null || left === null) return { ok: false, reason: `reply subject ${shown(reply)} has no stream sequence` };
  if (streamSeq <= expect.afterSeq) return { ok: false, reason: `stream sequence ${streamSeq} after ${expect.afterSeq}: not increasing, a copy of an older record` };
  return { ok: true, streamSeq, pending: left };
}

function count(token: string | undefined): number | null {
  return token !== undefined && /^\d{1,16}$/.test(token) ? Number(token) : null;
}

// A reason quotes what the sender chose: cut, and kept to printable ASCII.
function shown(text: string): string {
  return JSON.stringify(text.slice(0, 120)).replace(/[^\x20-\x7e]/g, '?');
}
