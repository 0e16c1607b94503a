export interface ExpiryLinks<N> {
  ePrev: N | undefined;
  eNext: N | undefined;
  expiresAt: number;
}

/**
 * All grants of all pools ordered by expiry. Every grant and renewal sets `expiresAt = now + ttl`
 * with one TTL, so in practice a node always belongs at the tail; inserting by walking back from
 * the tail is then O(1), and still correct if the caller's clock ever steps backwards. The
 * earliest expiry, which the broker arms its one timer for, is simply the head.
 */
export class ExpiryList<N extends ExpiryLinks<N>> {
  head: N | undefined = undefined;
  tail: N | undefined = undefined;

  insert(node: N): void {
    let after = this.tail;
    while (after && after.expiresAt > node.expiresAt) after = after.ePrev;
    node.ePrev = after;
    node.eNext = after ? after.eNext : this.head;
    if (node.eNext) node.eNext.ePrev = node;
    else this.tail = node;
    if (after) after.eNext = node;
    else this.head = node;
  }

  /** `node` must be in this list. */
  remove(node: N): void {
    if (node.ePrev) node.ePrev.eNext = node.eNext;
    else this.head = node.eNext;
    if (node.eNext) node.eNext.ePrev = node.ePrev;
    else this.tail = node.ePrev;
    node.ePrev = undefined;
    node.eNext = undefined;
  }
}
