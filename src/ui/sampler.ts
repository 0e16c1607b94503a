// One sampler for every open page: the cluster is asked once per interval however many browsers
// watch, and not at all when none does. A slow cluster never piles up requests (one in flight).
import type { Transport } from '../ports/index.ts';
import { PictureHistory } from './history.ts';
import { samplePicture, type FleetPicture, type SampleOptions } from './picture.ts';
import { errorMessage } from '../api/index.ts';

export type PictureListener = (picture: FleetPicture, json: string) => void;
/** A sample that failed (NATS unreachable, the membership bucket unreadable): said, not swallowed. */
export type ProblemListener = (message: string) => void;

export class PictureSampler {
  private readonly history = new PictureHistory();
  private readonly listeners = new Set<PictureListener>();
  private readonly problemListeners = new Set<ProblemListener>();
  private latest: { picture: FleetPicture; json: string } | null = null;
  private inFlight: Promise<{ picture: FleetPicture; json: string }> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly transport: Transport, private readonly options: SampleOptions & { intervalMs: number }) {}

  /** A fresh picture (one sample at most per interval). */
  async current(): Promise<{ picture: FleetPicture; json: string }> {
    if (this.latest && Date.now() - this.latest.picture.at < this.options.intervalMs) return this.latest;
    return this.sample();
  }

  subscribe(listener: PictureListener, onProblem?: ProblemListener): () => void {
    this.listeners.add(listener);
    if (onProblem) this.problemListeners.add(onProblem);
    this.timer ??= setInterval(() => void this.sample().catch((err: unknown) => {
      const message = `refresh failed: ${errorMessage(err)}`;
      for (const l of this.problemListeners) l(message);
    }), this.options.intervalMs);
    return () => {
      this.listeners.delete(listener);
      if (onProblem) this.problemListeners.delete(onProblem);
      if (this.listeners.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.listeners.clear();
    this.problemListeners.clear();
  }

  private sample(): Promise<{ picture: FleetPicture; json: string }> {
    this.inFlight ??= (async () => {
      try {
        const s = await samplePicture(this.transport, this.options);
        const throughput = this.history.add(s.at, s.states, s.provisioned);
        const picture: FleetPicture = { ...s, throughput, history: this.history.list() };
        const json = JSON.stringify(picture);
        this.latest = { picture, json };
        for (const l of this.listeners) l(picture, json);
        return this.latest;
      } finally {
        this.inFlight = null;
      }
    })();
    return this.inFlight;
  }
}
