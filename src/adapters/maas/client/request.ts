import { setTimeout as sleep } from 'node:timers/promises';
import { parseRetryAfter, retryDelay } from './backoff.ts';
import type { Answer, Call, Send } from './call.ts';
import { fail } from './call.ts';
import { parseErrorBody } from './error-body.ts';
import { classifyStatus, hintFor } from './errors.ts';
import { encodeForm } from './form.ts';
import type { CallCounter, RawResponse, Transport } from '../../http/index.ts';
import { RequestWithheld, TransportError } from '../../http/index.ts';
import { oauthAuthorization } from './oauth.ts';
import type { ResolvedOptions } from './options.ts';
import { createRedactor } from './redact.ts';

// The request core: one call signed afresh for every attempt (a nonce is used once), retried
// where a second copy cannot repeat a change, and every failure turned into a MaasError with no
// part of the key or the user data in it.

// OpenSSL's verification failures as Node reports them: retrying cannot fix them.
const TLS_VERIFY = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ALTNAME/;

export interface RequestCore {
  readonly opts: ResolvedOptions;
  readonly transport: Transport;
  readonly stats: CallCounter;
  /** The strings of the API key, redacted from every error. */
  readonly keySecrets: readonly string[];
}

export function createSend({ opts, transport, stats, keySecrets }: RequestCore): Send {
  function urlOf(c: Call): URL {
    const url = new URL(opts.apiBase.toString());
    url.pathname = `${opts.apiBase.pathname}${c.path}`;
    url.search = c.query !== undefined && c.query.length > 0 ? encodeForm(c.query) : '';
    return url;
  }

  return async function request(c: Call): Promise<Answer> {
    const redact = createRedactor([...keySecrets, ...(c.secrets ?? [])]);
    const url = urlOf(c);
    const body = c.form === undefined ? undefined : encodeForm(c.form);
    const baseHeaders: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'metalfleet-maas-client' };
    if (body !== undefined) baseHeaders['Content-Type'] = 'application/x-www-form-urlencoded';
    // Only a POST changes MAAS in ways a second copy would repeat (a second allocation, a second
    // deploy meeting a 409); it is sent again only when it cannot have reached MAAS.
    const idempotent = c.method !== 'POST';
    const { attempts } = opts.retries;

    for (let attempt = 1; ; attempt++) {
      stats.count(c.route);
      const headers = { ...baseHeaders, Authorization: oauthAuthorization(opts.key, opts.signature, { method: c.method, url: url.toString(), form: c.form ?? [] }) };
      const again = async (retryAfter: number | null): Promise<void> => {
        stats.countRetry();
        await sleep(retryDelay(attempt, opts.retries, retryAfter));
      };
      let raw: RawResponse;
      try {
        raw = await transport.send({ method: c.method, url, headers, body, timeoutMs: opts.timeoutMs });
      } catch (err) {
        if (err instanceof RequestWithheld) {
          // It waited for a connection past the moment its caller may call (the shard lease): not
          // sent, so MAAS did nothing; not retried here, the lease's next holder makes the call.
          stats.withheld(c.route);
          throw fail(c, redact, 'withheld', true, 'withheld as it could leave: the caller\'s shard lease was no longer safely held; MAAS was not called', { attempts: attempt });
        }
        if (!(err instanceof TransportError)) throw err;
        stats.answered(c.route, err.failure.kind === 'timeout' ? 'timeout' : 'network');
        const mayRepeat = idempotent || !err.sent;
        if (err.failure.kind === 'timeout') {
          if (mayRepeat && attempt < attempts) {
            await again(null);
            continue;
          }
          const unsure = mayRepeat ? '' : '; the request may have reached MAAS, read the state before repeating it';
          throw fail(c, redact, 'timeout', true, `MAAS at ${opts.endpoint} gave no complete answer within ${err.failure.timeoutMs} ms${after(attempt)}${unsure}`, {
            attempts: attempt, cause: new Error(redact(err.message)),
          });
        }
        const e = err.failure.error;
        const tls = TLS_VERIFY.test(e.code ?? '');
        if (!tls && mayRepeat && attempt < attempts) {
          await again(null);
          continue;
        }
        const what = tls
          ? `TLS verification of MAAS at ${opts.endpoint} failed (${e.code}): check tls.ca`
          : `cannot reach MAAS at ${opts.endpoint} (${e.code ?? redact(e.message)})${after(attempt)}`;
        throw fail(c, redact, 'network', !tls, what, { attempts: attempt, cause: redactedError(e, redact) });
      }
      // By answer as the Ironic client counts them, for metalfleet_backend_requests_total.
      stats.answered(c.route, String(raw.status));
      if (raw.status >= 200 && raw.status < 300) {
        const text = raw.body.trim();
        if (text === '') return { status: raw.status, json: undefined };
        try {
          return { status: raw.status, json: JSON.parse(text) as unknown };
        } catch (err) {
          throw fail(c, redact, 'invalid-response', false, `MAAS's answer (HTTP ${raw.status}) is not JSON`, {
            status: raw.status, attempts: attempt, cause: new Error(`${redact((err as Error).message)}; answer began: ${redact(text.slice(0, 200))}`),
          });
        }
      }

      const contentType = typeof raw.headers['content-type'] === 'string' ? raw.headers['content-type'] : undefined;
      const said = parseErrorBody(raw.body, contentType);
      const maasMessage = redact(said.message);
      const formErrors = said.formErrors === undefined ? undefined : redactForm(said.formErrors, redact);
      const { code, retryable } = classifyStatus(raw.status, c.isAllocate === true, said.message);
      if (retryable && (idempotent || raw.status === 503) && attempt < attempts) {
        await again(parseRetryAfter(raw.headers['retry-after']));
        continue;
      }
      const what = maasMessage !== '' ? maasMessage : (raw.statusText || 'no message');
      throw fail(c, redact, code, retryable, `MAAS answered HTTP ${raw.status}${after(attempt)}: ${what}${hintFor(code, opts.keySource)}`, {
        status: raw.status,
        maasMessage,
        ...(formErrors !== undefined ? { formErrors } : {}),
        attempts: attempt,
        cause: new Error(`HTTP ${raw.status} ${raw.statusText}: ${redact(said.message !== '' ? said.message : raw.body.slice(0, 200))}`),
      });
    }
  };
}

function after(attempt: number): string {
  return attempt > 1 ? ` after ${attempt} attempts` : '';
}

function redactForm(form: Record<string, string[]>, redact: (s: string) => string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [field, msgs] of Object.entries(form)) out[field] = msgs.map(redact);
  return out;
}

// Node's network errors carry no request data, but their messages are redacted all the same.
function redactedError(e: Error & { code?: string }, redact: (s: string) => string): Error {
  return Object.assign(new Error(redact(e.message)), e.code === undefined ? {} : { code: e.code });
}
