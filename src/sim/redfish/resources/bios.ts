import { visibleAttributes } from '../model/bios.ts';
import type { BiosState } from '../model/bios.ts';
import { biosProblem, passwordProblem } from '../model/bios-registry.ts';
import { onlyParameters, propertyTypeError, stringParameter, valueNotInList } from '../http/action.ts';
import { badRequest, notPatchable, propertyValueError, registryError } from '../http/errors.ts';
import type { Ctx, Resource } from '../http/context.ts';
import { odata, ref } from '../http/odata.ts';

// Bios holds the current attributes; Bios/Settings (its @Redfish.Settings SettingsObject) takes
// PATCHes that wait for the next power-on or restart, the only way real BIOS settings change.
// A client may say when with @Redfish.SettingsApplyTime (sushy does, Ironic asks for OnReset); only
// the times SupportedApplyTimes lists are taken, and the settings object shows the one in force.
const base = (ctx: Ctx) => `${ctx.system().info.systemPath}/Bios`;
const APPLY_TIMES = ['OnReset'] as const;
const APPLY_TIME = '@Redfish.SettingsApplyTime';

function checkApplyTime(raw: unknown): void {
  if (raw === undefined) return;
  const applyTime = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>).ApplyTime : raw;
  if (!(APPLY_TIMES as readonly unknown[]).includes(applyTime)) {
    throw propertyValueError('PropertyValueNotInList', `${APPLY_TIME}/ApplyTime`, applyTime);
  }
}

/**
 * Time and Messages of @Redfish.Settings once a boot took staged settings, as BMCs report the last
 * application: sushy's Bios.update_status reads "no updates" without Time, success when every
 * message is OK. Settings are checked against the registry when PATCHed, so an application succeeds.
 */
function appliedAnnotation(applied: BiosState['applied']): object {
  if (applied === null) return {};
  return {
    Time: applied.time,
    Messages: [{ '@odata.type': '#Message.v1_1_1.Message', MessageId: 'Base.1.8.Success', Message: 'Successfully Completed Request', Severity: 'OK', MessageSeverity: 'OK', Resolution: 'None' }],
  };
}

function biosBody(ctx: Ctx): object {
  const s = ctx.system();
  const { registry } = s.model;
  return {
    ...odata(base(ctx), '#Bios.v1_1_0.Bios'),
    Id: 'BIOS', Name: 'BIOS Configuration Current Settings', AttributeRegistry: registry.id,
    Attributes: visibleAttributes(registry, s.state.bios.current, true),
    '@Redfish.Settings': {
      '@odata.type': '#Settings.v1_3_0.Settings',
      SettingsObject: ref(`${base(ctx)}/Settings`),
      SupportedApplyTimes: APPLY_TIMES,
      ...appliedAnnotation(s.state.bios.applied),
    },
    Actions: {
      '#Bios.ResetBios': { target: `${base(ctx)}/Actions/Bios.ResetBios` },
      '#Bios.ChangePassword': { target: `${base(ctx)}/Actions/Bios.ChangePassword`, 'PasswordName@Redfish.AllowableValues': Object.keys(s.state.bios.passwords) },
    },
  };
}

function settingsBody(ctx: Ctx): object {
  const { registry } = ctx.system().model;
  return {
    ...odata(`${base(ctx)}/Settings`, '#Bios.v1_1_0.Bios'),
    Id: 'Settings', Name: 'BIOS Configuration Pending Settings', AttributeRegistry: registry.id,
    Attributes: visibleAttributes(registry, ctx.system().state.bios.pending, false),
    [APPLY_TIME]: { '@odata.type': '#Settings.v1_3_0.PreferredApplyTime', ApplyTime: 'OnReset', 'ApplyTime@Redfish.AllowableValues': APPLY_TIMES },
  };
}

function patchSettings(ctx: Ctx) {
  const s = ctx.system();
  // Attributes and the apply time are what the settings object takes; anything else is refused
  // as on every other PATCH (read-only or unknown), never dropped while the rest is staged.
  // Other annotations pass, as an action's do.
  const other = Object.keys(ctx.body).find((key) => key !== 'Attributes' && !key.startsWith('@'));
  if (other !== undefined) throw notPatchable(other, settingsBody(ctx));
  const attrs = ctx.body.Attributes;
  checkApplyTime(ctx.body[APPLY_TIME]);
  if (attrs === undefined) throw registryError(400, 'PropertyMissing', ['Attributes'], ['#/Attributes']);
  if (typeof attrs !== 'object' || attrs === null || Array.isArray(attrs)) throw propertyTypeError('Attributes', attrs);
  // All or nothing, as a BMC validates a PATCH against its registry before staging any of it.
  const problem = biosProblem(s.model.registry, attrs as Record<string, unknown>);
  if (problem) throw badRequest(problem.messageId, problem.message, `Attributes/${problem.attribute}`);
  s.state.bios.pending = { ...s.state.bios.pending, ...(attrs as Record<string, string | number | boolean>) };
  return { status: 204 };
}

export const biosResources: Resource[] = [
  {
    pattern: '/redfish/v1/Systems/:sys/Bios',
    get: biosBody,
    // Read-only (its Allow header says GET): changes go to the settings object.
    notAllowedResolution: (path) => `PATCH its @Redfish.Settings SettingsObject, ${path}/Settings, instead.`,
  },
  {
    pattern: '/redfish/v1/Systems/:sys/Bios/Settings',
    get: settingsBody,
    patch: patchSettings,
    patchRequires: 'Attributes',
  },
  {
    pattern: '/redfish/v1/Systems/:sys/Bios/Actions/Bios.ResetBios',
    post: (ctx) => {
      onlyParameters('Bios.ResetBios', ctx.body, []);
      const bios = ctx.system().state.bios;
      bios.resetPending = true;
      bios.pending = {};
      return { status: 204 };
    },
  },
  {
    pattern: '/redfish/v1/Systems/:sys/Bios/Actions/Bios.ChangePassword',
    post: (ctx) => {
      onlyParameters('Bios.ChangePassword', ctx.body, ['PasswordName', 'OldPassword', 'NewPassword']);
      const name = stringParameter('Bios.ChangePassword', ctx.body, 'PasswordName');
      const s = ctx.system();
      const passwords = s.state.bios.passwords;
      // Own keys only: `in` would take toString or constructor for a password name.
      if (!Object.hasOwn(passwords, name)) throw valueNotInList('Bios.ChangePassword', 'PasswordName', name);
      const old = stringParameter('Bios.ChangePassword', ctx.body, 'OldPassword');
      const next = stringParameter('Bios.ChangePassword', ctx.body, 'NewPassword');
      // Never echo either password back: the message names the field only.
      if (passwords[name] !== old) throw registryError(400, 'ActionParameterValueError', ['OldPassword', 'Bios.ChangePassword'], ['#/OldPassword']);
      const problem = passwordProblem(s.model.registry, name, next);
      if (problem) throw badRequest('ActionParameterValueFormatError', problem.message, 'NewPassword');
      passwords[name] = next;
      return { status: 204 };
    },
  },
];
