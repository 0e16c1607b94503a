// Tasks of the TaskService: a SimpleUpdate runs as one, Running until its timer completes it. A task
// is about the systems it changes: a client whose account opens any of them may read it.
export type TaskState = 'New' | 'Running' | 'Completed' | 'Exception';

export interface SimTask {
  id: string;
  name: string;
  systemIds: readonly string[];
  state: TaskState;
  status: 'OK' | 'Warning' | 'Critical';
  percent: number;
  started: string;
  ended?: string;
  message: string;
}

export class Tasks {
  private readonly tasks = new Map<string, SimTask>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private next = 1;

  /** Starts a task that `finish` completes after `ms`. */
  start(name: string, systemIds: readonly string[], ms: number, finish: (task: SimTask) => void): SimTask {
    const task: SimTask = { id: String(this.next++), name, systemIds, state: 'Running', status: 'OK', percent: 0, started: new Date().toISOString(), message: `${name} is running.` };
    this.tasks.set(task.id, task);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      finish(task);
      task.state = 'Completed';
      task.percent = 100;
      task.ended = new Date().toISOString();
      task.message = `${name} completed.`;
    }, ms);
    this.timers.add(timer);
    return task;
  }

  get(id: string): SimTask | undefined {
    return this.tasks.get(id);
  }

  all(): SimTask[] {
    return [...this.tasks.values()];
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
