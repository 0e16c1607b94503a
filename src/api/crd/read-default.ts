import type { z } from 'zod';

// Where upstream's CRD declares no default, the API server stores a field unset and BMO's Go code
// reads the zero value; metalfleet's types want the value itself. readDefault() fills it when zod
// parses, and marks it so the generated CRD leaves the field without a default, as upstream's does.

/** Set on such a default's JSON Schema by meta(); structuralSchema() drops the default and the mark. */
export const READ_DEFAULT = 'x-metalfleet-read-default';

/** `schema` with a default applied when metalfleet reads an object, but not declared in the CRD. */
export function readDefault<T extends z.ZodType>(schema: T, value: z.util.NoUndefined<z.output<T>>): z.ZodDefault<T> {
  return schema.default(value).meta({ [READ_DEFAULT]: true });
}
