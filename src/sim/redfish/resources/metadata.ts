import type { Resource } from '../http/context.ts';
import { serviceRoot } from './root.ts';

// The DMTF schemas whose types the simulator emits: every @odata.context points into $metadata, so
// each namespace it names must be one $metadata references (DSP0266 §8.4).
const NAMESPACES = [
  'ServiceRoot', 'ComputerSystem', 'ComputerSystemCollection', 'Manager', 'ManagerCollection', 'Chassis', 'ChassisCollection',
  'SessionService', 'Session', 'SessionCollection', 'UpdateService', 'SoftwareInventory', 'SoftwareInventoryCollection',
  'TaskService', 'Task', 'TaskCollection', 'MessageRegistryFile', 'MessageRegistryFileCollection', 'AttributeRegistry',
  'Bios', 'SecureBoot', 'Processor', 'ProcessorCollection', 'Memory', 'MemoryCollection', 'EthernetInterface',
  'EthernetInterfaceCollection', 'NetworkAdapter', 'NetworkAdapterCollection', 'SimpleStorage', 'SimpleStorageCollection',
  'Storage', 'StorageCollection', 'Drive', 'Volume', 'VolumeCollection', 'VirtualMedia', 'VirtualMediaCollection',
  'ActionInfo', 'Message', 'Settings', 'Resource',
] as const;

/** `#ServiceRoot.v1_5_0.ServiceRoot` → `ServiceRoot.v1_5_0`: the versioned namespace the Service container extends. */
function rootNamespace(): string {
  const type = serviceRoot()['@odata.type'];
  return typeof type === 'string' ? type.replace(/^#/, '').split('.').slice(0, 2).join('.') : 'ServiceRoot.v1_5_0';
}

function metadata(): string {
  const root = rootNamespace();
  const refs = NAMESPACES.map((name) => [
    `  <edmx:Reference Uri="http://redfish.dmtf.org/schemas/v1/${name}_v1.xml">`,
    `    <edmx:Include Namespace="${name}"/>`,
    ...(name === 'ServiceRoot' ? [`    <edmx:Include Namespace="${root}"/>`] : []),
    '  </edmx:Reference>',
  ].join('\n'));
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">',
    ...refs,
    '  <edmx:Reference Uri="http://redfish.dmtf.org/schemas/v1/RedfishExtensions_v1.xml">',
    '    <edmx:Include Namespace="RedfishExtensions.v1_0_0" Alias="Redfish"/>',
    '  </edmx:Reference>',
    '  <edmx:DataServices>',
    '    <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="Service">',
    `      <EntityContainer Name="Service" Extends="${root}.ServiceContainer"/>`,
    '    </Schema>',
    '  </edmx:DataServices>',
    '</edmx:Edmx>',
    '',
  ].join('\n');
}

function isLink(v: unknown): v is { '@odata.id': string } {
  return typeof v === 'object' && v !== null && typeof (v as Record<string, unknown>)['@odata.id'] === 'string';
}

/** The OData service document: the service root and each resource it links, as singletons. */
function serviceDocument(): object {
  const root = serviceRoot();
  const links = { ...root, ...(typeof root.Links === 'object' && root.Links !== null ? root.Links : {}) };
  const value = Object.entries(links).filter(([name, v]) => name !== 'Links' && isLink(v)).map(([name, v]) => ({ name, kind: 'Singleton', url: (v as { '@odata.id': string })['@odata.id'] }));
  return { '@odata.context': '/redfish/v1/$metadata', value: [{ name: 'Service', kind: 'Singleton', url: '/redfish/v1/' }, ...value] };
}

// DSP0266: /redfish/v1/, $metadata and odata answer without credentials.
export const metadataResources: Resource[] = [
  { pattern: '/redfish/v1/$metadata', public: ['GET'], getReply: () => ({ status: 200, text: metadata(), headers: { 'Content-Type': 'application/xml; charset=utf-8' } }) },
  { pattern: '/redfish/v1/odata', public: ['GET'], get: serviceDocument },
];
