import type { BareMetalHostStatus } from '../../api/index.ts';
import type { Fence, Logger, ResourceStore } from '../../ports/index.ts';
import { StatusWriter as KindStatusWriter } from '../machine/status-writer.ts';
import type { Clock } from '../runtime/index.ts';

export { STATUS_WRITE_RETRY } from '../machine/status-writer.ts';

// The BareMetalHost's status writer: the generic one every kind uses, writing to the host store.
// With a fence (cluster mode) every write carries the shard lease's epoch, so the store can
// refuse it once a newer owner has written.
export class StatusWriter extends KindStatusWriter<BareMetalHostStatus> {
  constructor(key: string, store: ResourceStore, log: Logger, clock: Clock, fence?: Fence) {
    super({
      key,
      logField: 'host',
      log,
      clock,
      ...(fence ? { epoch: fence.epoch } : {}),
      write: fence ? (status) => store.writeStatus('BareMetalHost', key, status, fence) : (status) => store.writeStatus('BareMetalHost', key, status),
    });
  }
}
