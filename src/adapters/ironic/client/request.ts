import { setTimeout as sleep } from 'node:timers/promises';
import { lockedRetryDelay } from './backoff.ts';
import type { Answer, Call, Send } from './call.ts';
import { fail, header } from './call.ts';
import { ironicErrorMessage } from './error-body.ts';
import { classifyStatus } from './errors.ts';
import type { CallCounter, RawResponse, Transport } from '../../http/index.ts';
import { RequestWithheld, TransportError } from '../../http/index.ts';
import type { ResolvedOptions } from './options.ts';
import { collectSecrets, createRedactor } from './redact.ts';
import type { ApiVersion } from './version.ts';

// The request core: one call sent with the negotiated version, a locked node retried, and every
// failure turned into an IronicError with no secret in it.

const VERSION_HEADER = 'X-OpenStack-Ironic-API-Version';
// The 406 of Ironic's version check (api/controllers/v1/__init__.py _check_version): "Version
// 1.96 was requested but ... The supported version range is: [1.1, 1.82]."
const VERSION_REFUSED = /supported version range is/i;
// OpenSSL's verification failures as Node reports them.
const TLS_VERIFY = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ALTNAME/;

export interface RequestCore {
  readonly opts: ResolvedOptions;
  readonly transport: Transport;
  readonly stats: CallCounter;
  /** The endpoint's origin and path, without a trailing slash. */
  readonly prefix: string;
  readonly fixedHeaders: Readonly<Record<string, string>>;
  /** Secrets of the options (credentials), redacted from every error. */
  readonly fixedSecrets: readonly string[];
  readonly versions: { ensureVersion(): Promise<ApiVersion>; forget(): void };
}

export function createSend(core: RequestCore): Send {
  const { opts, transport, stats, prefix, fixedHeaders, fixedSecrets, versions } = core;
  return async function request(c: Call): Promise<Answer> {
    const v = c.unversioned ? null : await versions.ensureVersion();
    const redact = createRedactor([...fixedSecrets, ...collectSecrets(c.body)]);
    const headers: Record<string, string> = { ...fixedHeaders };
    if (v !== null) headers[VERSION_HEADER] = v.text;
    const body = c.body === undefined ? undefined : JSON.stringify(c.body);
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const { attempts } = opts.lockedRetries;

    for (let attempt = 1; ; attempt++) {
      stats.count(c.route);
      let raw: RawResponse;
      try {
        raw = await transport.send({ method: c.method, url: new URL(prefix + c.path), headers, body, timeoutMs: opts.timeoutMs });
      } catch (err) {
        if (err instanceof RequestWithheld) {
          // It waited for a connection past the moment its caller may call (the shard lease): not
          // sent, so Ironic did nothing and the call may be made again by whoever holds the lease.
          stats.withheld(c.route);
          throw fail(c, 'withheld', true, `withheld as it could leave: the caller's shard lease was no longer safely held; Ironic was not called`, { attempts: attempt });
        }
        if (!(err instanceof TransportError)) throw err;
        stats.answered(c.route, err.failure.kind === 'timeout' ? 'timeout' : 'network');
        if (err.failure.kind === 'timeout') {
          throw fail(c, 'timeout', true, `Ironic at ${opts.endpoint} gave no complete answer within ${err.failure.timeoutMs} ms`, { attempts: attempt, cause: new Error(redact(err.message)) });
        }
        const e = err.failure.error;
        // A certificate Ironic's TLS does not pass stays bad however often it is tried.
        const tls = TLS_VERIFY.test(e.code ?? '');
        const what = tls ? `TLS verification of Ironic at ${opts.endpoint} failed (${e.code}): check tls.ca` : `cannot reach Ironic at ${opts.endpoint} (${e.code ?? redact(e.message)})`;
        throw fail(c, 'network', !tls, what, { attempts: attempt, cause: e });
      }
      stats.answered(c.route, String(raw.status));
      const requestId = header(raw, 'openstack-request-id') ?? header(raw, 'x-openstack-request-id');
      if (raw.status >= 200 && raw.status < 300) {
        let json: unknown;
        if (raw.body.trim() !== '') {
          try {
            json = JSON.parse(raw.body);
          } catch (err) {
            throw fail(c, 'invalid-response', false, `Ironic's answer (HTTP ${raw.status}) is not JSON`, {
              status: raw.status, requestId, attempts: attempt, cause: new Error(`${redact((err as Error).message)}; answer began: ${redact(raw.body.slice(0, 200))}`),
            });
          }
        }
        return { status: raw.status, json, raw };
      }
      const said = ironicErrorMessage(raw.body);
      const ironicMessage = said === null ? null : redact(said);
      const classified = classifyStatus(raw.status, ironicMessage);
      // Ironic's other 406, NotAcceptable ("Request not acceptable."): a field, filter or verb
      // newer than a version it otherwise serves. Negotiating again gives the same version, so it
      // is refused for good; taken as a version refusal it was retried, and renegotiated, forever.
      const notAcceptable = classified.code === 'version' && v !== null && ironicMessage !== null && !VERSION_REFUSED.test(ironicMessage);
      const { code, retryable } = notAcceptable ? { code: 'unsupported' as const, retryable: false } : classified;
      if (code === 'locked' && attempt < attempts) {
        stats.countRetry();
        await sleep(lockedRetryDelay(attempt, opts.lockedRetries));
        continue;
      }
      // A 406 means the version we negotiated is no longer offered (Ironic was rolled back):
      // forget it, so that the next call negotiates again.
      if (code === 'version') versions.forget();
      const after = attempt > 1 ? ` after ${attempt} attempts` : '';
      const what = (ironicMessage ?? (raw.statusText || 'no message')) + (notAcceptable && v !== null ? ` (at API ${v.text}: the call, or a field or parameter of it, needs a newer API version than metalfleet negotiated)` : '');
      throw fail(c, code, code === 'version' ? true : retryable, `Ironic answered HTTP ${raw.status}${after}: ${what}`, {
        status: raw.status,
        ironicMessage,
        requestId,
        attempts: attempt,
        cause: new Error(`HTTP ${raw.status} ${raw.statusText}${requestId ? ` (${requestId})` : ''}: ${redact(said ?? raw.body.slice(0, 500))}`),
      });
    }
  };
}
