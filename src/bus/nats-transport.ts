import { readFile } from 'node:fs/promises';
import { inspect } from 'node:util';
import {
  AuthorizationError, ClosedConnectionError, createInbox, credsAuthenticator, DrainingConnectionError, InvalidArgumentError,
  nkeyAuthenticator, nkeys, NoRespondersError, PermissionViolationError, RequestError, TimeoutError, tokenAuthenticator, usernamePasswordAuthenticator,
} from '@nats-io/nats-core';
import type { Authenticator, ConnectionOptions, Msg, NatsConnection, TlsOptions } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import type { BusMessage, BusStatus, BusSubscription, KvBucket, KvBucketOptions, Logger, SubscribeOptions, Transport } from '../ports/index.ts';
import { BusError, KvUnavailable } from '../ports/index.ts';
import { kvStreamState, openNatsKv } from './nats-kv.ts';
import { KvStreamIdentity, STREAM_PERIODIC_CHECK_MS } from './kv-stream-identity.ts';
import { inboxPrefixFor, inboxUserProblem } from './inbox-prefix.ts';
import type { ServerInfo } from './server-info.ts';
import { serverGreeting } from './nats-greeting.ts';
import { greetingProblem, jetStreamMissing, tlsProblem } from './nats-connect-problems.ts';
import { errorMessage } from '../api/index.ts';
import { validSubject } from './subject-match.ts';

export type NatsAuth =
  | { readonly user: string; readonly pass: string }
  | { readonly token: string }
  // from: where the seed came from ("--nats-nkey-file FILE", "NATS_NKEY_SEED"), for its errors.
  | { readonly nkeySeed: string; readonly from?: string }
  | { readonly credsFile: string };

export interface NatsConnectOptions {
  readonly servers: string | readonly string[];
  /** Shown by the server (connz) and in our errors: the node's name. */
  readonly name: string;
  readonly auth?: NatsAuth;
  readonly tls?: { readonly caFile?: string; readonly certFile?: string; readonly keyFile?: string };
  /** -1 (default) keeps trying forever: a node outlives any server restart. */
  readonly maxReconnectAttempts?: number;
  readonly reconnectTimeWaitMs?: number;
  /** Time allowed to open the first connection. */
  readonly timeoutMs?: number;
  /** Told when a subscription handler throws; the subscription carries on either way. */
  readonly onHandlerError?: (error: unknown, subject: string) => void;
  /** The node's logger: what the connection reports on its own (a KV watch restarted) goes here. */
  readonly log?: Logger;
  /** On a clustered server, how often the buckets' streams are checked without a reconnect (kv-stream-identity.ts); default 30 s. */
  readonly kvStreamCheckMs?: number;
}

/** The first connection failed. `retryable` is false when trying again cannot help (credentials, TLS, files). */
export class BusConnectError extends BusError {
  override readonly retryable: boolean;
  constructor(servers: string, detail: string, retryable: boolean, options?: ErrorOptions) {
    super('unavailable', servers, detail, options);
    this.name = 'BusConnectError';
    this.retryable = retryable;
  }
}

export { protectAuth } from './protect-auth.ts';

export async function connectNats(options: NatsConnectOptions): Promise<Transport> {
  const given = typeof options.servers === 'string' ? [options.servers] : [...options.servers];
  // Credentials written into a server URL are this client's to send: nats.js v3 ignores them, so
  // nats://admin:pw@host, as nats-server's docs and the nats CLI take it, failed as unauthorised.
  // Explicit auth wins; the client is given the URLs without them.
  const fromUrl = options.auth ? undefined : urlCredentials(given);
  const servers = fromUrl ? given.map(withoutUserinfo) : given;
  const auth = options.auth ?? fromUrl;
  const redact = redactor(auth, given);
  const where = given.map(redact).join(',');
  const authenticator = auth ? await authenticatorFor(auth, where, redact) : undefined;
  if (auth && 'user' in auth) {
    const problem = inboxUserProblem(auth.user);
    if (problem) throw new BusConnectError(where, problem, false);
  }
  const inboxPrefix = inboxPrefixFor(auth);
  // tls:// asks for TLS, as nats-server's docs and the nats CLI read it; nats.js reads TLS only
  // from its options and connected in plain text to a server without it. The system's CAs.
  const tls = options.tls ?? (servers.some((s) => /^tls:\/\//i.test(s)) ? {} : undefined);
  const opts: ConnectionOptions = {
    servers,
    name: options.name,
    maxReconnectAttempts: options.maxReconnectAttempts ?? -1,
    reconnectTimeWait: options.reconnectTimeWaitMs ?? 2_000,
    timeout: options.timeoutMs ?? 20_000,
    // The client otherwise builds an Error (with a stack) per request for async traces: 7-8% of
    // a node's CPU in the commands bench. Our errors carry subject and kind instead.
    noAsyncTraces: true,
    ...(authenticator ? { authenticator } : {}),
    ...(inboxPrefix ? { inboxPrefix } : {}),
    ...(tls ? { tls: definedOnly(tls) } : {}),
  };
  const info = await checkGreeting(servers, Math.min(opts.timeout ?? GREETING_MS, GREETING_MS), where, tls);
  // Not reconnecting while the first connection is made: nats.js notices a connection that the
  // server drops after the TLS handshake (its refusal of our client certificate, under TLS 1.3)
  // only when it is not to reconnect; otherwise it waits out `timeout`. Once connected, the
  // client reconnects as configured: the switch is read only when a connection is lost.
  opts.reconnect = false;
  let nc: NatsConnection;
  try {
    nc = await connect(opts);
  } catch (error) {
    const problem = await tlsProblem(error, tls, info, new Date());
    if (problem) throw new BusConnectError(where, redact(problem.detail), problem.retryable, { cause: error });
    throw connectError(error, where, options.auth ?? urlAuth(given), redact);
  }
  // The options object the client was given is the one it reads (nats-core's ProtocolHandler).
  const live = (nc as { readonly options?: ConnectionOptions }).options;
  if (live) live.reconnect = true;
  const transport = new NatsTransport(options.name, where, nc, redact, options.onHandlerError, options.log);
  // Only a cluster can lose a bucket's one copy on a server this connection is not on.
  if (transport.serverCluster !== null) transport.checkKvEvery(options.kvStreamCheckMs ?? STREAM_PERIODIC_CHECK_MS);
  return transport;
}

class NatsTransport implements Transport {
  // Private fields: util.inspect and JSON.stringify never walk into the connection or the redactor.
  readonly #nc: NatsConnection;
  readonly #redact: (text: string) => string;
  readonly #onHandlerError: ((error: unknown, subject: string) => void) | undefined;
  readonly #log: Logger | undefined;
  readonly #listeners = new Set<(status: BusStatus) => void>();
  #status: BusStatus = 'connected';
  #closing: Promise<void> | null = null;
  readonly #streams: KvStreamIdentity;

  constructor(readonly name: string, readonly servers: string, nc: NatsConnection, redact: (text: string) => string,
    onHandlerError?: (error: unknown, subject: string) => void, log?: Logger) {
    this.#nc = nc;
    this.#log = log;
    this.#redact = redact;
    this.#onHandlerError = onHandlerError;
    this.#streams = new KvStreamIdentity({
      ask: (bucket) => kvStreamState(nc, bucket),
      onReplaced: (reason) => {
        if (this.#log) this.#log.error({ connection: this.name }, reason);
        else process.stderr.write(`metalfleet: ${reason}\n`);
      },
    });
    void this.#watchStatus();
    void nc.closed().then(() => this.#setStatus('closed'));
  }

  /** The cluster of the server this connection is on, as its INFO says; null for a lone server. */
  get serverCluster(): { readonly name: string; readonly servers: number } | null {
    const info = this.#nc.info;
    if (!info?.cluster) return null;
    // connect_urls lists every server's client URL, its own included (absent with no_advertise).
    return { name: info.cluster, servers: info.connect_urls?.length ?? 0 };
  }

  get maxPayload(): number {
    return this.#nc.info?.max_payload ?? 1024 * 1024;
  }

  newInbox(): string {
    // The connection keeps the options it was opened with (the NatsConnection type does not show
    // them): its inbox prefix, which the server's permissions may reserve to this user.
    return createInbox((this.#nc as { readonly options?: ConnectionOptions }).options?.inboxPrefix);
  }

  async request(subject: string, data: Uint8Array, options: { timeoutMs: number }): Promise<Uint8Array> {
    checkSubject(subject, false);
    this.#checkSize(subject, data);
    try {
      const reply = await this.#nc.request(subject, data, { timeout: options.timeoutMs });
      return reply.data;
    } catch (error) {
      throw this.#busError(subject, error, options.timeoutMs);
    }
  }

  publish(subject: string, data: Uint8Array): void {
    checkSubject(subject, false);
    this.#checkSize(subject, data);
    try {
      this.#nc.publish(subject, data);
    } catch (error) {
      throw this.#busError(subject, error);
    }
  }

  subscribe(subject: string, handler: (msg: BusMessage) => void, options: SubscribeOptions = {}): BusSubscription {
    checkSubject(subject, true);
    const onError = this.#onHandlerError;
    let sub;
    try {
      sub = this.#nc.subscribe(subject, {
        ...(options.queue ? { queue: options.queue } : {}),
        callback: (err, m) => {
          if (err) {
            onError?.(err, subject);
            return;
          }
          const msg: BusMessage = { subject: m.subject, data: m.data, ...(m.reply ? { reply: m.reply } : {}), respond: (out) => this.#respond(m, out) };
          // The client calls us from its socket reader: an exception here would break the connection.
          try {
            handler(msg);
          } catch (error) {
            onError?.(error, m.subject);
          }
        },
      });
    } catch (error) {
      throw this.#busError(subject, error);
    }
    return {
      unsubscribe: () => {
        if (!sub.isClosed()) sub.unsubscribe();
      },
      drain: async () => {
        if (this.#nc.isClosed() || sub.isClosed()) return;
        // A drain waits for the server's PONG: with the connection down, for a reconnect that may
        // never come (a node stopping after NATS died waited seconds per service). The server
        // dropped this interest with the connection; nothing is left to drain but our side.
        if (this.#status !== 'connected') {
          sub.unsubscribe();
          return;
        }
        await sub.drain().catch((error: unknown) => {
          // A connection that closed meanwhile has nothing left to drain.
          if (!this.#nc.isClosed()) throw this.#busError(subject, error);
        });
      },
    };
  }

  async kv(bucket: string, options?: KvBucketOptions): Promise<KvBucket> {
    if (this.#nc.isClosed()) throw new BusError('closed', `kv.${bucket}`, `connection ${this.name} is closed`);
    try {
      return await openNatsKv(this.#nc, bucket, {
        ...options, redact: this.#redact, ...(this.#log ? { logger: this.#log } : {}),
        onOpened: (created) => this.#streams.opened(bucket, created),
        onRevision: this.#streams.revisions(bucket),
      });
    } catch (error) {
      throw withoutJetStream(error) ?? error;
    }
  }

  async answers(withinMs: number): Promise<boolean> {
    if (this.#status !== 'connected') return false;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, withinMs, false)));
    // A connection that is lost meanwhile answers no; nats.js reports that through status().
    const answered = await Promise.race([this.#nc.rtt().then(() => true, () => false), late]);
    clearTimeout(timer);
    if (!answered && this.#status === 'connected') this.#setStatus('stalled');
    return answered;
  }

  kvReplaced(): string | null {
    return this.#streams.reason();
  }

  async checkKv(): Promise<string | null> {
    await this.#streams.check();
    return this.#streams.reason();
  }

  checkKvEvery(everyMs: number): void {
    this.#streams.checkEvery(everyMs);
  }

  onStatus(listener: (status: BusStatus) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  toJSON(): object {
    return { name: this.name, servers: this.servers, status: this.#status };
  }

  [inspect.custom](): string {
    return `NatsTransport ${inspect(this.toJSON(), { breakLength: Infinity })}`;
  }

  async #close(): Promise<void> {
    this.#streams.stop();
    if (this.#nc.isClosed()) return;
    // Drain needs the server (it flushes and waits for a PONG); while reconnecting it could hang.
    if (this.#status === 'connected') {
      try {
        await this.#nc.drain();
        return;
      } catch {
        // fall through to a hard close
      }
    }
    await this.#nc.close();
  }

  #respond(m: Msg, out: Uint8Array): boolean {
    if (!m.reply) return false;
    this.#checkSize(m.subject, out);
    try {
      return m.respond(out);
    } catch (error) {
      const mapped = this.#busError(m.subject, error);
      if (mapped.kind === 'closed') return false;
      throw mapped;
    }
  }

  #checkSize(subject: string, data: Uint8Array): void {
    const max = this.maxPayload;
    if (data.length > max) throw new BusError('tooLarge', subject, `payload of ${data.length} bytes is over the server's max_payload of ${max} bytes`);
  }

  #busError(subject: string, error: unknown, timeoutMs?: number): BusError {
    if (error instanceof BusError) return error;
    const cause = { cause: error };
    if (error instanceof NoRespondersError || (error instanceof RequestError && error.isNoResponders())) {
      return new BusError('noResponders', subject, 'no subscriber is listening', cause);
    }
    if (error instanceof TimeoutError || (error instanceof RequestError && error.cause instanceof TimeoutError)) {
      return new BusError('timeout', subject, `no reply within ${timeoutMs ?? '?'} ms`, cause);
    }
    if (error instanceof ClosedConnectionError || error instanceof DrainingConnectionError
      || (error instanceof RequestError && error.message === 'connection closed')) {
      return new BusError('closed', subject, `connection ${this.name} is closed`, cause);
    }
    const refused = error instanceof PermissionViolationError ? error : error instanceof Error && error.cause instanceof PermissionViolationError ? error.cause : null;
    if (refused) {
      return new BusError('forbidden', subject, `the NATS server does not allow this connection's user to ${refused.operation === 'publish' ? 'publish to' : 'subscribe to'} ${refused.subject}: connect as a user whose permissions allow it`, cause);
    }
    if (error instanceof InvalidArgumentError && error.message.includes('max_payload')) {
      return new BusError('tooLarge', subject, `payload is over the server's max_payload of ${this.maxPayload} bytes`, cause);
    }
    return new BusError('unavailable', subject, this.#redact(messageOf(error)), cause);
  }

  async #watchStatus(): Promise<void> {
    try {
      for await (const s of this.#nc.status()) {
        if (s.type === 'disconnect') this.#setStatus('disconnected');
        else if (s.type === 'reconnecting') this.#setStatus('reconnecting');
        else if (s.type === 'reconnect') {
          this.#setStatus('connected');
          // The server may be one restarted without its store: are the buckets' streams the same?
          void this.#streams.reconnected();
        }
      }
    } catch {
      // The iterator ends (or fails) when the connection closes; nc.closed() reports that.
    }
  }

  #setStatus(status: BusStatus): void {
    if (this.#status === status || this.#status === 'closed') return;
    this.#status = status;
    for (const listener of [...this.#listeners]) {
      try {
        listener(status);
      } catch {
        // A broken listener must not stop the others from hearing about the connection.
      }
    }
  }
}

/**
 * nats.js checks only for whitespace (a retryable-looking error) and publishes to "a.*" or "a..b"
 * as given, where nats-server routes a wildcard publish to wildcard subscribers: the caller's
 * mistake, refused here as the memory transport does, and not worth a retry.
 */
function checkSubject(subject: string, wildcards: boolean): void {
  if (!validSubject(subject, wildcards)) {
    throw new BusError('invalidMessage', subject, wildcards ? 'not a valid subject pattern' : 'not a valid subject to publish to (dot-separated tokens, no spaces, no wildcards)');
  }
}

// nats.js passes the JetStream API's "none here" answers on as they are: reworded to say what to change.
function withoutJetStream(error: unknown): KvUnavailable | null {
  if (!(error instanceof KvUnavailable)) return null;
  const problem = jetStreamMissing(messageOf(error.cause ?? error));
  return problem ? new KvUnavailable(error.bucket, problem, { cause: error }) : null;
}

async function authenticatorFor(auth: NatsAuth, where: string, redact: (t: string) => string): Promise<Authenticator> {
  if ('user' in auth) return usernamePasswordAuthenticator(auth.user, auth.pass);
  if ('token' in auth) return tokenAuthenticator(auth.token);
  if ('nkeySeed' in auth) {
    const seed = new TextEncoder().encode(auth.nkeySeed.trim());
    // Named by where it came from: "auth.nkeySeed" told a CLI user neither the flag nor the file.
    checkSeed(seed, where, auth.from ? `the nkey seed in ${auth.from}` : 'auth.nkeySeed');
    return nkeyAuthenticator(seed);
  }
  let creds: Uint8Array;
  try {
    creds = await readFile(auth.credsFile);
  } catch (error) {
    throw new BusConnectError(where, `cannot read the creds file ${auth.credsFile}: ${redact(messageOf(error))}`, false, { cause: error });
  }
  // Checked now so a bad file fails here with its name, not as an opaque error inside the handshake.
  const blocks = [...new TextDecoder().decode(creds).matchAll(/-{3,}[^\n]*-{3,}\n(.+)\n\s*-{3,}[^\n]*-{3,}/g)];
  if (blocks.length < 2 || !blocks[0]?.[1]?.trim().startsWith('ey')) {
    throw new BusConnectError(where, `the creds file ${auth.credsFile} is not a NATS creds file (expected a user JWT block and an nkey seed block)`, false);
  }
  checkSeed(new TextEncoder().encode(blocks[1]?.[1]?.trim() ?? ''), where, `the nkey seed in ${auth.credsFile}`);
  return credsAuthenticator(creds);
}

// How long a server may take to greet (INFO) after accepting the connection: a nats-server does
// at once. One that says nothing in this time is reported as such, not left to the connect timeout.
const GREETING_MS = 2_000;

/**
 * What answers at the servers' addresses, before the NATS client dials (nats-greeting.ts): a port
 * that accepts and says nothing, or speaks HTTP or something else, fails here in seconds with
 * what was found; the client waited out its whole connect timeout and said "timeout". A server
 * that verifies client certificates (mutual TLS) says so in its INFO: a client without one was
 * dropped after the handshake, unnoticed until the timeout too. Returns that INFO, when one came.
 */
async function checkGreeting(servers: readonly string[], withinMs: number, where: string, tls: NatsConnectOptions['tls']): Promise<ServerInfo | undefined> {
  const greeting = await serverGreeting(servers, withinMs);
  if (greeting.kind === 'none') {
    const problem = greetingProblem(greeting.outcomes);
    if (problem) throw new BusConnectError(where, problem.detail, problem.retryable);
    return undefined;
  }
  if (greeting.info.tls_verify === true && !tls?.certFile) {
    throw new BusConnectError(where, 'the NATS server requires a client certificate (mutual TLS) and none was given: '
      + 'pass --nats-cert and --nats-key (or NATS_CERT and NATS_KEY; tls.certFile and tls.keyFile to connectNats)', false);
  }
  return greeting.info;
}

// What a seed other than a user's (the second letter of S.) belongs to.
const SEED_KINDS: Readonly<Record<string, string>> = { A: 'an account', O: 'an operator', N: 'a server', C: 'a cluster', X: 'a curve (xkey)' };

function checkSeed(seed: Uint8Array, where: string, what: string): void {
  const text = new TextDecoder().decode(seed);
  // The public key is what a server's config lists, so it is the one easily copied into the file.
  if (isPublicKey(seed)) {
    throw new BusConnectError(where, `${what} is a public key (${text.slice(0, 1)}...), not a seed: give the user's seed (SU...), which nsc or nk wrote next to it`, false);
  }
  try {
    nkeys.fromSeed(seed);
    const kind = text.startsWith('S') ? SEED_KINDS[text.charAt(1)] : undefined;
    if (kind) {
      throw new BusConnectError(where, `${what} is ${kind} seed (S${text.charAt(1)}...), not a user seed: give the user's seed (SU...)`, false);
    }
  } catch (error) {
    if (error instanceof BusConnectError) throw error;
    // No cause: the nkeys error could quote the seed.
    throw new BusConnectError(where, `${what} is not a valid nkey seed (expected "SU..." as made by nsc or nk)`, false);
  }
}

function isPublicKey(key: Uint8Array): boolean {
  try {
    nkeys.fromPublic(new TextDecoder().decode(key));
    return true;
  } catch {
    return false;
  }
}

function connectError(error: unknown, where: string, auth: NatsAuth | UrlAuth | undefined, redact: (t: string) => string): BusConnectError {
  const text = redact(messageOf(error));
  if (error instanceof AuthorizationError) {
    return new BusConnectError(where, `authorization failed for ${describeAuth(auth)} (${text}): check the credentials`, false, { cause: error });
  }
  if (/certificate|tls|ssl|ENOENT|EACCES/i.test(text)) {
    return new BusConnectError(where, `TLS setup failed (${text}): check the tls files and that the server speaks TLS`, false, { cause: error });
  }
  // Node's "Invalid URL" carries the URL it could not read (`input`), password and all: no cause then.
  if ((error as { code?: unknown } | null)?.code === 'ERR_INVALID_URL') {
    return new BusConnectError(where, `cannot connect (${text}): a server URL cannot be read; a "/" in its user:password@ is written %2F`, false);
  }
  return new BusConnectError(where, `cannot connect (${text})`, true, { cause: error });
}

// A server may come without a scheme (the client adds nats://), and a URL parser reads userinfo
// up to the last "@" before the path, so a password may hold an "@": both are matched here.
const USERINFO = /^((?:[a-z][a-z0-9+.-]*:\/\/)?)([^/]*)@/i;

/** The `user:pass` or token before the `@` of a server URL, if any. */
function userinfoOf(url: string): string | undefined {
  return USERINFO.exec(url)?.[2] || undefined;
}

// What is hidden from messages: everything up to the URL's last "@", "/" included. A "/" in a
// password ends the host for a URL parser, so the client reads no URL at all and says so, and
// USERINFO (which stops at a "/") found nothing to hide from the message quoting it.
const SHOWN_USERINFO = /^((?:[a-z][a-z0-9+.-]*:\/\/)?)(.*)@/is;

/** A server URL as it may be shown: `nats://user:pass@host:4222` → `nats://host:4222`. */
export function withoutUserinfo(url: string): string {
  return url.replace(USERINFO, '$1');
}

/** What a server URL's userinfo offers (nats://user:pass@host, nats://token@host); never its secret. */
type UrlAuth = { readonly fromUrl: 'user'; readonly user: string } | { readonly fromUrl: 'token' };

// Credentials in a server URL are sent by the client too: an authorization failure said "no
// credentials", which sent the operator looking for a flag they never needed.
function urlAuth(servers: readonly string[]): UrlAuth | undefined {
  for (const url of servers) {
    const userinfo = userinfoOf(url);
    if (!userinfo) continue;
    const colon = userinfo.indexOf(':');
    if (colon < 0) return { fromUrl: 'token' };
    const user = userinfo.slice(0, colon);
    try {
      return { fromUrl: 'user', user: decodeURIComponent(user) };
    } catch {
      return { fromUrl: 'user', user };
    }
  }
  return undefined;
}

// The first server URL's userinfo as credentials: user:pass (percent-decoded, as a URL parser
// reads them), or a token alone. A cluster's URLs name one account, so the first one found is it.
function urlCredentials(servers: readonly string[]): NatsAuth | undefined {
  for (const url of servers) {
    const userinfo = userinfoOf(url);
    if (!userinfo) continue;
    const colon = userinfo.indexOf(':');
    if (colon < 0) return { token: decoded(userinfo) };
    return { user: decoded(userinfo.slice(0, colon)), pass: decoded(userinfo.slice(colon + 1)) };
  }
  return undefined;
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function describeAuth(auth: NatsAuth | UrlAuth | undefined): string {
  if (!auth) return 'no credentials';
  if ('fromUrl' in auth) return auth.fromUrl === 'user' ? `user "${auth.user}" in the server URL` : 'a token in the server URL';
  if ('user' in auth) return `user "${auth.user}"`;
  if ('token' in auth) return 'a token';
  if ('nkeySeed' in auth) return 'an nkey seed';
  return `creds file ${auth.credsFile}`;
}

/** Strips every secret we were given, and user:pass in server URLs, from a text. */
function redactor(auth: NatsAuth | undefined, servers: readonly string[]): (text: string) => string {
  const secrets: string[] = [];
  if (auth && 'pass' in auth) secrets.push(auth.pass);
  if (auth && 'token' in auth) secrets.push(auth.token);
  if (auth && 'nkeySeed' in auth) secrets.push(auth.nkeySeed.trim());
  for (const url of servers) {
    const userinfo = SHOWN_USERINFO.exec(url)?.[2];
    if (userinfo) secrets.push(userinfo);
  }
  const live = secrets.filter((s) => s.length > 0);
  return (text) => live.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
}

function definedOnly(tls: NonNullable<NatsConnectOptions['tls']>): TlsOptions {
  const out: TlsOptions = {};
  if (tls.caFile) out.caFile = tls.caFile;
  if (tls.certFile) out.certFile = tls.certFile;
  if (tls.keyFile) out.keyFile = tls.keyFile;
  return out;
}

function messageOf(error: unknown): string {
  return errorMessage(error);
}
