import { onlyParameters, propertyTypeError, stringParameter, valueNotInList } from '../http/action.ts';
import { badRequest, notPatchable } from '../http/errors.ts';
import type { Ctx, Resource } from '../http/context.ts';
import { odata } from '../http/odata.ts';

const RESET_KEYS = ['ResetAllKeysToDefault', 'DeleteAllKeys', 'DeletePK'] as const;
const base = (ctx: Ctx) => `${ctx.system().info.systemPath}/SecureBoot`;

function secureBootBody(ctx: Ctx): object {
  const sb = ctx.system().state.secureBoot;
  return {
    ...odata(base(ctx), '#SecureBoot.v1_1_0.SecureBoot'),
    Id: 'SecureBoot', Name: 'UEFI Secure Boot',
    SecureBootEnable: sb.enabled, SecureBootMode: sb.mode, SecureBootCurrentBoot: sb.currentBoot,
    Actions: { '#SecureBoot.ResetKeys': { target: `${base(ctx)}/Actions/SecureBoot.ResetKeys`, 'ResetKeysType@Redfish.AllowableValues': RESET_KEYS } },
  };
}

export const secureBootResources: Resource[] = [
  {
    pattern: '/redfish/v1/Systems/:sys/SecureBoot',
    get: secureBootBody,
    patch: (ctx) => {
      const sb = ctx.system().state.secureBoot;
      for (const key of Object.keys(ctx.body)) if (key !== 'SecureBootEnable') throw notPatchable(key, secureBootBody(ctx));
      const enable = ctx.body.SecureBootEnable;
      if (typeof enable !== 'boolean') throw propertyTypeError('SecureBootEnable', enable);
      // Like firmware: secure boot needs UEFI, and the change shows in SecureBootCurrentBoot at the next boot.
      if (enable && ctx.system().state.boot.mode !== 'UEFI') throw badRequest('PropertyValueConflict', 'SecureBootEnable needs Boot/BootSourceOverrideMode UEFI.', 'SecureBootEnable');
      sb.enabled = enable;
      return { status: 204 };
    },
  },
  {
    pattern: '/redfish/v1/Systems/:sys/SecureBoot/Actions/SecureBoot.ResetKeys',
    post: (ctx) => {
      onlyParameters('SecureBoot.ResetKeys', ctx.body, ['ResetKeysType']);
      const type = stringParameter('SecureBoot.ResetKeys', ctx.body, 'ResetKeysType');
      if (!(RESET_KEYS as readonly string[]).includes(type)) throw valueNotInList('SecureBoot.ResetKeys', 'ResetKeysType', type);
      // Without a platform key the firmware is in setup mode.
      ctx.system().state.secureBoot.mode = type === 'ResetAllKeysToDefault' ? 'UserMode' : 'SetupMode';
      return { status: 204 };
    },
  },
];
