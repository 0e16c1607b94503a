declare const brand: unique symbol;

/**
 * The address of an actor that accepts messages of type M. The brand is a parameter position, so
 * ActorRef<A> is not assignable to ActorRef<B> unless B's messages are all A's (nact's Ref<T> is
 * an empty class: every ref fits every other).
 */
export type ActorRef<M> = { readonly path: string; readonly [brand]: (m: M) => void };

/**
 * A ref to any actor whatever it accepts: for stop, children, spawn's parent. ActorRef<unknown>
 * would not do: under strictFunctionTypes ActorRef<HostMsg> is not assignable to it.
 */
export type AnyActorRef = ActorRef<never>;

/** A plain function placed in a message; calling it twice or after the deadline is harmless. */
export type Reply<R> = (value: R) => void;

export type TellOutcome = 'delivered' | 'overflow' | 'dead';
