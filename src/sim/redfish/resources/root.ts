import { stringProperty } from '../http/action.ts';
import { loginRefused, notFound, registryError } from '../http/errors.ts';
import type { Ctx, Resource } from '../http/context.ts';
import { collection, odata, ref, STATUS_OK } from '../http/odata.ts';
import { accountOf } from '../http/sessions.ts';
import type { Session } from '../http/sessions.ts';

const SESSIONS = '/redfish/v1/SessionService/Sessions';
/** What a login (POST to Sessions) may carry: the credentials, nothing else. */
const LOGIN_PROPERTIES = ['UserName', 'Password'];

export function serviceRoot(): Record<string, unknown> {
  return {
    ...odata('/redfish/v1', '#ServiceRoot.v1_5_0.ServiceRoot'),
    Id: 'RootService',
    Name: 'Root Service',
    RedfishVersion: '1.11.0',
    UUID: '85775665-c110-4b85-8989-e6162170b3ec',
    Product: 'metalfleet Redfish BMC simulator',
    Vendor: 'metalfleet',
    Systems: ref('/redfish/v1/Systems'),
    Managers: ref('/redfish/v1/Managers'),
    Chassis: ref('/redfish/v1/Chassis'),
    SessionService: ref('/redfish/v1/SessionService'),
    UpdateService: ref('/redfish/v1/UpdateService'),
    Registries: ref('/redfish/v1/Registries'),
    // ServiceRoot names the TaskService "Tasks" (and sushy looks for that name).
    Tasks: ref('/redfish/v1/TaskService'),
    Links: { Sessions: ref(SESSIONS) },
  };
}

function sessionBody(s: Session): object {
  return { ...odata(`${SESSIONS}/${s.id}`, '#Session.v1_3_0.Session'), Id: s.id, Name: `Session ${s.id}`, UserName: s.username, CreatedTime: s.created };
}

function ownSession(ctx: Ctx): Session {
  const s = ctx.world.sessions.get(ctx.params.id ?? '');
  // Another BMC's session is unknown here.
  if (!s || !s.systemIds.some((id) => ctx.principal.systemIds.includes(id))) throw notFound(ctx.path);
  return s;
}

export const rootResources: Resource[] = [
  { pattern: '/redfish', public: ['GET'], get: () => ({ v1: '/redfish/v1/' }) },
  { pattern: '/redfish/v1', public: ['GET'], get: serviceRoot },
  {
    pattern: '/redfish/v1/SessionService',
    get: (ctx) => ({ ...odata('/redfish/v1/SessionService', '#SessionService.v1_1_8.SessionService'), Id: 'SessionService', Name: 'Session Service', ServiceEnabled: true, SessionTimeout: ctx.world.sessions.timeoutSeconds, Status: STATUS_OK, Sessions: ref(SESSIONS) }),
  },
  {
    pattern: SESSIONS,
    public: ['POST'],
    get: (ctx) => collection(SESSIONS, '#SessionCollection.SessionCollection', 'Session Collection', ctx.world.sessions.visibleTo(ctx.principal.systemIds).map((s) => `${SESSIONS}/${s.id}`)),
    post: (ctx) => {
      // A refusal names the property and never quotes its value (a password). A property the
      // Session does not take is refused (PropertyUnknown), as bmcweb does, not dropped.
      const unknown = Object.keys(ctx.body).find((key) => !key.startsWith('@') && !LOGIN_PROPERTIES.includes(key));
      if (unknown !== undefined) throw registryError(400, 'PropertyUnknown', [unknown], [`#/${unknown}`]);
      const user = stringProperty(ctx.body, 'UserName');
      const password = stringProperty(ctx.body, 'Password');
      const { open, refused } = accountOf(ctx.world.systems.values(), user, password);
      if (open.length === 0) throw loginRefused(SESSIONS);
      const s = ctx.world.sessions.create(user, open, refused);
      return { status: 201, body: sessionBody(s), headers: { 'X-Auth-Token': s.token, Location: `${SESSIONS}/${s.id}` } };
    },
  },
  {
    pattern: `${SESSIONS}/:id`,
    get: (ctx) => sessionBody(ownSession(ctx)),
    delete: (ctx) => {
      ctx.world.sessions.delete(ownSession(ctx).id);
      return { status: 204 };
    },
  },
];
