// The OData annotations every Redfish resource carries.
export function odata(id: string, type: string): Record<string, string> {
  // #ComputerSystem.v1_13_0.ComputerSystem → ComputerSystem.ComputerSystem
  const parts = type.replace(/^#/, '').split('.');
  return { '@odata.id': id, '@odata.type': type, '@odata.context': `/redfish/v1/$metadata#${parts[0] ?? ''}.${parts[parts.length - 1] ?? ''}` };
}

export function ref(id: string): { '@odata.id': string } {
  return { '@odata.id': id };
}

export function collection(id: string, type: string, name: string, members: readonly string[]): object {
  return { ...odata(id, type), Name: name, 'Members@odata.count': members.length, Members: members.map(ref) };
}

export const STATUS_OK = { State: 'Enabled', Health: 'OK', HealthRollup: 'OK' } as const;

/**
 * An ActionInfo resource (DMTF ActionInfo): the parameter of a reset action and the values it takes,
 * what @Redfish.ActionInfo on the action names. BMCs such as OpenBMC's describe actions this way.
 */
export function resetActionInfo(id: string, values: readonly string[]): object {
  return {
    ...odata(id, '#ActionInfo.v1_1_2.ActionInfo'),
    Id: 'ResetActionInfo', Name: 'Reset Action Info',
    Parameters: [{ Name: 'ResetType', Required: true, DataType: 'String', AllowableValues: [...values] }],
  };
}
