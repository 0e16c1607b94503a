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
