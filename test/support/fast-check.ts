import fc from 'fast-check';

/** fc.assert, with the property's own error (fast-check keeps it as `cause`) in the failure text. */
export async function assertShowingCause<T>(property: fc.IAsyncProperty<T>, params: fc.Parameters<T>): Promise<void> {
  try {
    await fc.assert(property, params);
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `\ncause: ${error.cause.message}` : '';
    throw new Error(`${error instanceof Error ? error.message : String(error)}${cause}`);
  }
}
