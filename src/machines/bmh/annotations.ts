import type { BareMetalHost, RebootAnnotation } from '../../api/index.ts';
import {
  DETACHED_ANNOTATION, HARDWARE_DETAILS_ANNOTATION, INSPECT_ANNOTATION, INSPECT_DISABLED, PAUSED_ANNOTATION,
  REBOOT_ANNOTATION, REPROVISION_ANNOTATION, STATUS_ANNOTATION, inspectionDisabled as apiInspectionDisabled, isPaused as apiIsPaused,
  readDetachedAnnotation, rebootAnnotations,
} from '../../api/index.ts';

// The machine reads annotations through the API's parsers (the same ones the webhook and
// `metalfleet validate` use); this file only adapts them to a whole host.
export const PAUSED = PAUSED_ANNOTATION;
export const DETACHED = DETACHED_ANNOTATION;
export const REBOOT = REBOOT_ANNOTATION;
export const INSPECT = INSPECT_ANNOTATION;
export const HARDWARE_DETAILS = HARDWARE_DETAILS_ANNOTATION;
export const STATUS = STATUS_ANNOTATION;
export const REPROVISION = REPROVISION_ANNOTATION;

export interface DetachRequest { deleteAction: 'delay' | 'delete'; force: boolean; malformed: boolean }

export function isPaused(host: BareMetalHost): boolean {
  return apiIsPaused(host.metadata.annotations);
}

export function rebootRequests(host: BareMetalHost): RebootAnnotation[] {
  return rebootAnnotations(host.metadata.annotations);
}

// As BMO's controller reads it: a malformed value still detaches (with defaults) and is reported
// as an event; an unknown deleteAction deletes and keeps its force.
export function detachRequest(host: BareMetalHost): DetachRequest | null {
  const value = host.metadata.annotations?.[DETACHED_ANNOTATION];
  return value === undefined ? null : readDetachedAnnotation(value);
}

export function inspectionDisabled(host: BareMetalHost): boolean {
  return apiInspectionDisabled(host);
}

// An empty inspect annotation on an available host asks for a fresh inspection.
export function inspectionRequested(host: BareMetalHost): boolean {
  const value = host.metadata.annotations?.[INSPECT_ANNOTATION];
  return value !== undefined && value !== INSPECT_DISABLED;
}

// The request id a reprovision was asked with ('' when none was given), or null when not asked.
export function reprovisionRequest(host: BareMetalHost): string | null {
  return host.metadata.annotations?.[REPROVISION_ANNOTATION] ?? null;
}
