import { isIP } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { apiKeySecrets } from './api-key.ts';
import { parseRetryAfter, retryDelay } from './backoff.ts';
import { DnsResource, DnsResourceList } from './dns-resource.ts';
import { parseErrorBody } from './error-body.ts';
import { classifyStatus, hintFor, MaasError } from './errors.ts';
import type { MaasErrorCode } from './errors.ts';
import type { FormPairs, FormValue } from './form.ts';
import { encodeForm, formPairs } from './form.ts';
import type { RawResponse } from '../../http/index.ts';
import { createTransport, TransportError } from '../../http/index.ts';
import { MaasMachine, MaasMachineList } from './machine.ts';
import { oauthAuthorization } from './oauth.ts';
import type { MaasClientOptions } from './options.ts';
import { resolveOptions } from './options.ts';
import { createRedactor, userDataSecrets } from './redact.ts';
import type { CallStats } from '../../http/index.ts';
import { createCallStats } from '../../http/index.ts';

export interface AllocateConstraints {
  cpuCount?: number;
  /** MB. */
  memMb?: number;
  zone?: string;
  pool?: string;
  /** All must exist in MAAS and all must match; sent as repeated `tags`. */
  tags?: string[];
  /** Leave out machines composed in a VM host (HCP sets it). */
  notPod?: boolean;
  /** MAAS keeps it on the machine until release; MachineQuery.agentName finds the machine by it. */
  agentName?: string;
}

export interface MachineQuery {
  hostname?: string[];
  zone?: string;
  pool?: string;
  /** Only machines allocated with this agent_name (MAAS matches it exactly). */
  agentName?: string;
}

export interface MachineUpdate {
  /** Bytes, or a whole number with a K/M/G/T suffix (powers of 1000); 0 disables swap (admin only). */
  swapSize?: number | string;
  hostname?: string;
}

export interface DeployOptions {
  /** Standard base64, as CAPMAAS encodes the bootstrap secret's `value`. */
  userDataBase64?: string;
  /** MAAS derives the OS from distro_series and ignores this; it is sent as CAPMAAS does. */
  osystem?: string;
  distroSeries?: string;
  ephemeralDeploy?: boolean;
  comment?: string;
}

export interface ReleaseOptions {
  /** Unset: MAAS's global enable_disk_erasing_on_release decides (CAPMAAS sends neither). */
  erase?: boolean;
  force?: boolean;
  comment?: string;
}

export interface DnsQuery {
  /** Split by MAAS at the first label into name and domain; a missing domain is a 404. */
  fqdn?: string;
  domain?: string;
  name?: string;
}

export interface CreateDnsResource {
  fqdn: string;
  addressTtl?: number;
  /** May be empty: CAPMAAS creates the record before any control-plane machine has an address. */
  ipAddresses: string[];
}

export interface UpdateDnsResource {
  /** The whole new set: what is not listed is removed, and [] empties the record. */
  ipAddresses: string[];
  addressTtl?: number;
}

export interface MaasClient {
  /** The endpoint without a trailing slash or /api/2.0, e.g. http://127.0.0.1:5240/MAAS. */
  readonly endpoint: string;
  /** POST /machines/ op=allocate; 409 → MaasError 'no-match'. */
  allocate(c: AllocateConstraints): Promise<MaasMachine>;
  /** null when MAAS has no such machine (404). */
  getMachine(systemId: string): Promise<MaasMachine | null>;
  listMachines(q?: MachineQuery): Promise<MaasMachine[]>;
  /** PUT /machines/{id}/; swap_size needs an admin key (403 'forbidden' otherwise). */
  updateMachine(systemId: string, f: MachineUpdate): Promise<MaasMachine>;
  deploy(systemId: string, o: DeployOptions): Promise<MaasMachine>;
  release(systemId: string, o?: ReleaseOptions): Promise<MaasMachine>;
  /** POST /machines/{id}/op-power_on (the path form, as maas-client-go sends it). */
  powerOn(systemId: string, o?: { comment?: string }): Promise<MaasMachine>;
  /**
   * POST /machines/{id}/op-power_off (the path form, as for power_on). MAAS answers before the
   * power action completes; `stopMode` soft asks the OS to shut down first where the power driver
   * can (MAAS's default and anything else is hard). Owner or admin only (403 otherwise).
   */
  powerOff(systemId: string, o?: { stopMode?: 'soft' | 'hard'; comment?: string }): Promise<MaasMachine>;
  /**
   * POST /machines/{id}/ op=set_owner_data: sets the keys given, removes those given as '' and
   * keeps the rest; MAAS drops all owner data when the machine is released.
   */
  setOwnerData(systemId: string, data: Readonly<Record<string, string>>): Promise<MaasMachine>;
  listDnsResources(q: DnsQuery): Promise<DnsResource[]>;
  createDnsResource(d: CreateDnsResource): Promise<DnsResource>;
  /** PUT replaces the whole IP set. */
  updateDnsResource(id: number, d: UpdateDnsResource): Promise<DnsResource>;
  /** A resource that is already gone is fine. */
  deleteDnsResource(id: number): Promise<void>;
  readonly stats: CallStats;
  /** Closes the kept-alive connections. */
  close(): void;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface Call {
  readonly method: Method;
  /** Under /api/2.0, e.g. /machines/abc123/. */
  readonly path: string;
  /** The route for stats and errors, e.g. `POST /machines/{id}/ op=deploy`. */
  readonly route: string;
  readonly op?: string;
  readonly query?: FormPairs;
  /** The form body (POST, PUT). */
  readonly form?: FormPairs;
  /** Strings of this call that must not appear in errors (user data). */
  readonly secrets?: readonly string[];
  readonly isAllocate?: boolean;
}

interface Answer {
  readonly status: number;
  readonly json: unknown;
}

// OpenSSL's verification failures as Node reports them: retrying cannot fix them.
const TLS_VERIFY = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ALTNAME/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
// MAAS takes a size as whole bytes or a whole number with a K, M, G or T suffix (powers of 1000).
const SIZE = /^\d+[KMGT]?$/i;
// MAAS splits a tags value at commas and spaces, so such a tag would silently become several.
const TAG = /^[^\s,]+$/;

export function createMaasClient(o: MaasClientOptions): MaasClient {
  const opts = resolveOptions(o);
  // A machine list of a large MAAS is a few MB; a larger body is not MAAS.
  const transport = createTransport(opts.apiBase.protocol === 'https:', opts.tls, 64 * 1024 * 1024);
  const stats = createCallStats();
  const keySecrets = apiKeySecrets(opts.key);

  function callText(c: Call): string {
    const query = c.query !== undefined && c.query.length > 0 ? `?${encodeForm(c.query)}` : '';
    return `${c.method} ${c.path}${query}${c.op !== undefined ? ` op=${c.op}` : ''}`;
  }

  function fail(c: Call, redact: (s: string) => string, code: MaasErrorCode, retryable: boolean, message: string, extra: { status?: number | null; maasMessage?: string; formErrors?: Record<string, string[]>; attempts?: number; cause?: unknown } = {}): MaasError {
    return new MaasError(redact(`${callText(c)}: ${message}`), {
      code,
      retryable,
      status: extra.status ?? null,
      maasMessage: extra.maasMessage ?? '',
      ...(extra.formErrors !== undefined ? { formErrors: extra.formErrors } : {}),
      call: redact(callText(c)),
      route: c.route,
      attempts: extra.attempts ?? 1,
    }, extra.cause === undefined ? undefined : { cause: extra.cause });
  }

  /** A call refused before anything was sent: bad input from our side. */
  function invalid(c: Call, message: string): MaasError {
    return fail(c, (s) => s, 'bad-request', false, message, { attempts: 0 });
  }

  function urlOf(c: Call): URL {
    const url = new URL(opts.apiBase.toString());
    url.pathname = `${opts.apiBase.pathname}${c.path}`;
    url.search = c.query !== undefined && c.query.length > 0 ? encodeForm(c.query) : '';
    return url;
  }

  async function request(c: Call): Promise<Answer> {
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
        if (!(err instanceof TransportError)) throw err;
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
      const { code, retryable } = classifyStatus(raw.status, c.isAllocate === true);
      if (retryable && (idempotent || raw.status === 503) && attempt < attempts) {
        await again(parseRetryAfter(raw.headers['retry-after']));
        continue;
      }
      const what = maasMessage !== '' ? maasMessage : (raw.statusText || 'no message');
      throw fail(c, redact, code, retryable, `MAAS answered HTTP ${raw.status}${after(attempt)}: ${what}${hintFor(code)}`, {
        status: raw.status,
        maasMessage,
        ...(formErrors !== undefined ? { formErrors } : {}),
        attempts: attempt,
        cause: new Error(`HTTP ${raw.status} ${raw.statusText}: ${redact(said.message !== '' ? said.message : raw.body.slice(0, 200))}`),
      });
    }
  }

  function parse<S extends z.ZodType>(c: Call, schema: S, a: Answer): z.infer<S> {
    const r = schema.safeParse(a.json);
    if (r.success) return r.data;
    const issue = r.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(body)';
    throw fail(c, (s) => s, 'invalid-response', false, `MAAS's answer (HTTP ${a.status}) has an unexpected shape at ${where}: ${issue?.message ?? 'invalid'}`, {
      status: a.status,
      cause: r.error,
    });
  }

  async function orNullOn404<T>(fn: () => Promise<T>): Promise<T | null> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof MaasError && err.code === 'not-found') return null;
      throw err;
    }
  }

  function machineCall(method: Method, systemId: string, route: string, extra: { suffix?: string; op?: string; form?: FormPairs; secrets?: readonly string[] } = {}): Call {
    const { suffix = '', ...rest } = extra;
    return { method, path: `/machines/${encodeURIComponent(String(systemId))}/${suffix}`, route, ...rest };
  }

  function checkSystemId(c: Call, systemId: string): void {
    if (typeof systemId !== 'string' || systemId.trim() === '' || systemId.includes('/')) throw invalid(c, 'the system id is empty or not a MAAS system id');
  }

  function checkDnsId(c: Call, id: number): void {
    if (!Number.isSafeInteger(id) || id < 0) throw invalid(c, `the DNS resource id must be a whole number, not ${String(id)}`);
  }

  function checkIps(c: Call, ips: readonly string[]): void {
    const bad = ips.filter((ip) => isIP(ip) === 0);
    if (bad.length > 0) throw invalid(c, `ipAddresses must be IPv4 or IPv6 addresses; not: ${bad.map((b) => JSON.stringify(b)).join(', ')}`);
  }

  function checkTtl(c: Call, ttl: number | undefined): void {
    if (ttl !== undefined && (!Number.isSafeInteger(ttl) || ttl < 0)) throw invalid(c, `addressTtl must be a whole number of seconds, not ${String(ttl)}`);
  }

  function checkCount(c: Call, name: string, v: number | undefined): void {
    if (v !== undefined && (!Number.isFinite(v) || v < 0)) throw invalid(c, `${name} must be a number >= 0, not ${String(v)}`);
  }

  const client: MaasClient = {
    endpoint: opts.endpoint,
    stats,

    async allocate(k) {
      const fields: Record<string, FormValue> = {
        op: 'allocate',
        cpu_count: k.cpuCount,
        mem: k.memMb,
        zone: k.zone,
        pool: k.pool,
        tags: k.tags !== undefined && k.tags.length > 0 ? k.tags : undefined,
        not_pod: k.notPod === true ? true : undefined,
        agent_name: k.agentName,
      };
      const c: Call = { method: 'POST', path: '/machines/', route: 'POST /machines/ op=allocate', op: 'allocate', form: formPairs(fields), isAllocate: true };
      checkCount(c, 'cpuCount', k.cpuCount);
      checkCount(c, 'memMb', k.memMb);
      const badTags = (k.tags ?? []).filter((t) => !TAG.test(t));
      if (badTags.length > 0) throw invalid(c, `tags must be single MAAS tag names (no spaces or commas); not: ${badTags.map((t) => JSON.stringify(t)).join(', ')}`);
      return parse(c, MaasMachine, await request(c));
    },

    async getMachine(systemId) {
      const c = machineCall('GET', systemId, 'GET /machines/{id}/');
      checkSystemId(c, systemId);
      return orNullOn404(async () => parse(c, MaasMachine, await request(c)));
    },

    async listMachines(q = {}) {
      const query = formPairs({ hostname: q.hostname !== undefined && q.hostname.length > 0 ? q.hostname : undefined, zone: q.zone, pool: q.pool, agent_name: q.agentName });
      const c: Call = { method: 'GET', path: '/machines/', route: 'GET /machines/', query };
      return parse(c, MaasMachineList, await request(c));
    },

    async updateMachine(systemId, f) {
      const c = machineCall('PUT', systemId, 'PUT /machines/{id}/', {
        form: formPairs({ swap_size: f.swapSize, hostname: f.hostname }),
      });
      checkSystemId(c, systemId);
      if (f.swapSize !== undefined && !SIZE.test(String(f.swapSize))) throw invalid(c, `swapSize must be bytes or a size like 2G, not ${JSON.stringify(String(f.swapSize))}`);
      if (f.hostname !== undefined && f.hostname.trim() === '') throw invalid(c, 'hostname must not be empty');
      return parse(c, MaasMachine, await request(c));
    },

    async deploy(systemId, d) {
      const userData = d.userDataBase64?.replace(/\s+/g, '');
      const c = machineCall('POST', systemId, 'POST /machines/{id}/ op=deploy', {
        op: 'deploy',
        form: formPairs({
          op: 'deploy',
          user_data: userData,
          osystem: d.osystem,
          distro_series: d.distroSeries,
          ephemeral_deploy: d.ephemeralDeploy,
          comment: d.comment,
        }),
        secrets: userData === undefined || userData === '' ? [] : userDataSecrets(userData),
      });
      checkSystemId(c, systemId);
      if (userData !== undefined && (!BASE64.test(userData) || userData.length % 4 !== 0)) {
        throw invalid(c, 'userDataBase64 is not standard base64 (encode the cloud-init user data with base64, not base64url)');
      }
      return parse(c, MaasMachine, await request(c));
    },

    async setOwnerData(systemId, data) {
      const c = machineCall('POST', systemId, 'POST /machines/{id}/ op=set_owner_data', {
        op: 'set_owner_data',
        form: [['op', 'set_owner_data'], ...formPairs(data).filter(([k]) => k !== 'op')],
      });
      checkSystemId(c, systemId);
      return parse(c, MaasMachine, await request(c));
    },

    async release(systemId, r = {}) {
      const c = machineCall('POST', systemId, 'POST /machines/{id}/ op=release', {
        op: 'release',
        form: formPairs({ op: 'release', erase: r.erase, force: r.force, comment: r.comment }),
      });
      checkSystemId(c, systemId);
      return parse(c, MaasMachine, await request(c));
    },

    async powerOn(systemId, p = {}) {
      // The comment goes in the body once-encoded; maas-client-go escapes it twice (capmaas §2.7).
      const c = machineCall('POST', systemId, 'POST /machines/{id}/op-power_on', {
        suffix: 'op-power_on',
        form: formPairs({ comment: p.comment }),
      });
      checkSystemId(c, systemId);
      return parse(c, MaasMachine, await request(c));
    },

    async powerOff(systemId, p = {}) {
      const c = machineCall('POST', systemId, 'POST /machines/{id}/op-power_off', {
        suffix: 'op-power_off',
        form: formPairs({ stop_mode: p.stopMode, comment: p.comment }),
      });
      checkSystemId(c, systemId);
      const answer = await request(c);
      // MAAS answers null when the power driver cannot stop the machine (e.g. manual): the
      // machine as it is then is the answer.
      if (answer.json === null) {
        const m = await client.getMachine(systemId);
        if (m) return m;
      }
      return parse(c, MaasMachine, answer);
    },

    async listDnsResources(q) {
      const c: Call = { method: 'GET', path: '/dnsresources/', route: 'GET /dnsresources/', query: formPairs({ fqdn: q.fqdn, domain: q.domain, name: q.name }) };
      return parse(c, DnsResourceList, await request(c));
    },

    async createDnsResource(d) {
      const c: Call = {
        method: 'POST',
        path: '/dnsresources/',
        route: 'POST /dnsresources/',
        // ip_addresses is whitespace-separated, and an empty value means no address.
        form: formPairs({ fqdn: d.fqdn, address_ttl: d.addressTtl, ip_addresses: d.ipAddresses.join(' ') }),
      };
      if (typeof d.fqdn !== 'string' || !d.fqdn.includes('.') || /\s/.test(d.fqdn)) throw invalid(c, 'fqdn must be a name with a domain, e.g. c1-3f9a2b.maas');
      checkTtl(c, d.addressTtl);
      checkIps(c, d.ipAddresses);
      return parse(c, DnsResource, await request(c));
    },

    async updateDnsResource(id, d) {
      const c: Call = {
        method: 'PUT',
        path: `/dnsresources/${id}/`,
        route: 'PUT /dnsresources/{id}/',
        form: formPairs({ ip_addresses: d.ipAddresses.join(' '), address_ttl: d.addressTtl }),
      };
      checkDnsId(c, id);
      checkTtl(c, d.addressTtl);
      checkIps(c, d.ipAddresses);
      return parse(c, DnsResource, await request(c));
    },

    async deleteDnsResource(id) {
      const c: Call = { method: 'DELETE', path: `/dnsresources/${id}/`, route: 'DELETE /dnsresources/{id}/' };
      checkDnsId(c, id);
      await orNullOn404(() => request(c));
    },

    close() {
      transport.close();
    },
  };
  return client;
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
