// A wrapper that replaces some members of an object and leaves the rest its own.

/**
 * `target` with the `wrapped` members in place of its own. Everything not wrapped is the target's
 * own, called on the target itself (a class with private state must see itself as `this`, not the
 * proxy). A method, once bound, is kept with the wrapped ones: every later use (a host's every
 * read and write passes here) is one lookup (issue 30).
 */
export function passThrough<T extends object>(target: T, wrapped: Map<PropertyKey, unknown>): T {
  const methods = new Map<PropertyKey, unknown>(wrapped);
  return new Proxy(target, {
    get: (t, prop) => {
      const method = methods.get(prop);
      if (method !== undefined) return method;
      const value: unknown = Reflect.get(t, prop, t);
      if (typeof value !== 'function') return value;
      const bound = (value as (...args: unknown[]) => unknown).bind(t);
      methods.set(prop, bound);
      return bound;
    },
  });
}
