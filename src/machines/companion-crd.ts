// The CRD of a BareMetalHost companion kind until its schema is written (branch fw-api,
// src/api/bmh/companions/): the object is read loosely (api/meta.ts ApiObject), as the store
// engine reads every record anyway, with BMO's names so kubectl finds it by them.
import { ApiObject, BMH_API_VERSION } from '../api/index.ts';
import { PART_OF_LABEL, type CustomResource } from '../api/crd/index.ts';

export function companionCrd(names: { kind: string; plural: string; singular: string; shortNames?: readonly string[]; statusSubresource: boolean; description: string }): CustomResource {
  return { apiVersion: BMH_API_VERSION, labels: PART_OF_LABEL, schema: ApiObject, ...names };
}
