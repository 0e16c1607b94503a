// Who sent a request, as far as the receiving connection can tell. NATS does not tell a
// subscriber which user published; what it carries is the reply subject, and a client's replies
// go to its connection's inbox: `<inbox prefix>.<connection>.<request>` (the client's muxed
// requests). The first two tokens name the connection, and with per-user inbox prefixes the user.
// A sender chooses its reply subject, so this groups refusals and gives a lead, never a proof.

/** The sender of a message with this reply subject: its first two tokens, or a fixed name when there is none. */
export function senderOf(reply: string | undefined): string {
  if (reply === undefined || reply === '') return 'no reply subject';
  return reply.split('.').slice(0, 2).join('.').slice(0, 120);
}
