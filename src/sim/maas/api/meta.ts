import { badRequest, forbidden, METHOD_RESERVED_ADMIN } from '../http/api-error.ts';
import type { Reply, Resource } from '../backend.ts';
import { noContent, ok } from '../backend.ts';
import { pyJsonDumps } from '../http/py-format.ts';

// version/, users/, account/, maas/: what a client asks before anything else (gomaasapi reads
// version/ and users/?op=whoami to connect). describe/ is served by server.ts: in MAAS it is a plain
// view over all resources, not a resource itself.

// maasserver/api/version.py API_CAPABILITIES_LIST, in its order.
export const CAPABILITIES: readonly string[] = [
  'networks-management',
  'static-ipaddresses',
  'ipv6-deployment-ubuntu',
  'devices-management',
  'storage-deployment-ubuntu',
  'network-deployment-ubuntu',
  'bridging-interface-ubuntu',
  'bridging-automatic-ubuntu',
  'authenticate-api',
];

/** The MAAS release the simulator answers as: its API behaviour follows MAAS 3.x (API 2.0). */
export const MAAS_VERSION = '3.5.4';

// MAAS writes these replies with json.dumps itself, so their spacing is Python's.
const pyJson = (value: unknown): Reply => ({ status: 200, text: pyJsonDumps(value), contentType: 'application/json; charset=utf-8' });

export const META_RESOURCES: readonly Resource[] = [
  {
    name: 'version/',
    pattern: /^version\/(?:op-([^/]+))?$/,
    hasId: false,
    anonymous: true,
    signatures: {
      'GET ': () => pyJson({ capabilities: CAPABILITIES, version: MAAS_VERSION, subversion: '' }),
    },
  },
  {
    name: 'users/',
    pattern: /^users\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b) => ok(b.accounts.list()),
      'GET whoami': (b, c) => ok(b.accounts.userJson(c.user.name)),
    },
  },
  {
    name: 'users/{username}/',
    pattern: /^users\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(b.accounts.userJson(c.id)),
    },
  },
  {
    name: 'account/',
    pattern: /^account\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'POST create_authorisation_token': (b, c) => {
        const token = b.accounts.createToken(c.user, c.params.get('name'));
        return pyJson({ token_key: token.key.tokenKey, token_secret: token.key.tokenSecret, consumer_key: token.key.consumerKey, name: token.name });
      },
      'POST delete_authorisation_token': (b, c) => {
        const tokenKey = c.params.get('token_key');
        if (tokenKey === undefined) throw badRequest('No provided token_key!');
        b.accounts.deleteToken(c.user, tokenKey);
        return noContent;
      },
      // MAAS lists whole keys here (account.py _format_tokens): the caller owns them.
      'GET list_authorisation_tokens': (b, c) => ({
        status: 200,
        text: JSON.stringify(
          b.accounts
            .tokens(c.user)
            .map((t) => ({ name: t.name, token: `${t.key.consumerKey}:${t.key.tokenKey}:${t.key.tokenSecret}` })),
          null,
          4,
        ),
        contentType: 'application/json; charset=utf-8',
      }),
    },
  },
  {
    name: 'maas/',
    pattern: /^maas\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET get_config': (b, c) => ({ status: 200, text: pyJsonDumps(b.config.get(c.params.get('name'))), contentType: 'application/json' }),
      'POST set_config': (b, c) => {
        if (!c.user.admin) throw forbidden(METHOD_RESERVED_ADMIN);
        b.config.set(c.params.get('name'), c.params.get('value'));
        // piston's rc.ALL_OK.
        return { status: 200, text: 'OK', contentType: 'text/plain' };
      },
    },
  },
];
