// The worker's OutcomeWriter, remembering what each failed run threw, so drain() can hand the handler's own error to
// the test while the failure is written to the table exactly as a worker writes it.

import type { TaskDefinition, TaskRecord } from "../define-tasks.js";
import type { FailedTask } from "../store/task-writes.js";
import { OutcomeWriter } from "../worker/outcome-writer.js";

export class ObservedOutcomes extends OutcomeWriter {
  private readonly thrown = new Map<string, unknown>();

  override fail(task: TaskRecord, definition: TaskDefinition | undefined, thrown: unknown, finalReason?: string): Promise<FailedTask | undefined> {
    this.thrown.set(task.id, thrown);
    return super.fail(task, definition, thrown, finalReason);
  }

  /** What the last failed run of task `id` threw (undefined when it did not fail), forgotten once taken. */
  takeThrown(id: string): unknown {
    const thrown = this.thrown.get(id);
    this.thrown.delete(id);
    return thrown;
  }
}
