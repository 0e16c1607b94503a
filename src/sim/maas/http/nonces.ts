import { pyStr } from './py-format.ts';
import { MaasApiError } from './api-error.ts';

// The replay checks MAAS's OAuth server makes before it looks at a signature (piston3's
// OAuthServer._check_timestamp and _check_nonce; MAAS keeps the nonces and sweeps old ones,
// maasserver/nonces_cleanup.py): a timestamp more than 300 s from the server's clock, or a nonce
// already seen for the same consumer and token, is 401.

/** OAuthServer.timestamp_threshold. */
export const TIMESTAMP_THRESHOLD_S = 300;

function oauthError(message: string): MaasApiError {
  // OAuthUnauthorized: "Authorization Error: %r" % message.
  return new MaasApiError(401, `Authorization Error: ${pyStr(message)}`, 'text/plain; charset=utf-8', { 'WWW-Authenticate': 'OAuth realm="MAAS API"' });
}

export class NonceBook {
  /** consumer key, token key, nonce → the request's timestamp (s). */
  private readonly seen = new Map<string, number>();
  private sweepAt = 0;

  // Wall time, not the simulator's clock: it is compared with the clients' own wall clocks.
  constructor(private readonly nowMs: () => number = Date.now) {}

  check(consumerKey: string, tokenKey: string, nonce: string, timestamp: number): void {
    const now = Math.floor(this.nowMs() / 1000);
    if (Math.abs(now - timestamp) > TIMESTAMP_THRESHOLD_S) {
      throw oauthError(`Expired timestamp: given ${timestamp} and now ${now} has a greater difference than threshold ${TIMESTAMP_THRESHOLD_S}`);
    }
    const key = JSON.stringify([consumerKey, tokenKey, nonce]);
    if (this.seen.has(key)) throw oauthError(`Nonce already used: ${nonce}`);
    this.seen.set(key, timestamp);
    this.sweep(now);
  }

  // A nonce whose timestamp is out of the window can never be replayed: the timestamp check stops it first.
  private sweep(now: number): void {
    if (now < this.sweepAt) return;
    this.sweepAt = now + TIMESTAMP_THRESHOLD_S;
    for (const [key, ts] of this.seen) if (ts < now - TIMESTAMP_THRESHOLD_S) this.seen.delete(key);
  }
}
