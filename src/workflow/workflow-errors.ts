// The errors of durable workflows: a step called wrongly (named, with the fix), a replay that asks for other steps than
// the run recorded (the handler's code changed under a run in flight), and an event that cannot be sent.

import { TaskQueueError } from "../errors.js";
import type { StepKind } from "../store/steps.js";

/** A step called with a bad name or argument, or where steps cannot run. Thrown inside the handler, failing the run. */
export class StepError extends TaskQueueError {
  constructor(
    readonly taskName: string,
    readonly stepName: string,
    problem: string,
  ) {
    super("TASK_STEP_INVALID", `Step ${JSON.stringify(stepName)} of task "${taskName}": ${problem}`);
  }
}

/**
 * A run asked for step `seq` by another name or kind than the run that recorded it: the handler no longer asks for its
 * steps in the same order (its code changed while this task was in flight, or it chooses steps by something other than
 * its payload and earlier steps' results). The run fails, as any failed run does (retried, then dead), and nothing
 * recorded is touched: deploy code that asks for the recorded steps first (see docs/workflows.md, "Changing a workflow").
 */
export class WorkflowNondeterminismError extends TaskQueueError {
  constructor(
    readonly taskName: string,
    readonly taskId: string,
    readonly seq: number,
    readonly recorded: { name: string; kind: StepKind },
    readonly asked: { name: string; kind: StepKind },
  ) {
    super(
      "TASK_WORKFLOW_NONDETERMINISM",
      `Task "${taskName}" (${taskId}) asked for step ${seq} as ${asked.kind} ${JSON.stringify(asked.name)}, but an earlier run recorded ` +
        `step ${seq} as ${recorded.kind} ${JSON.stringify(recorded.name)}: a workflow must ask for its steps in the order they were recorded. ` +
        `Keep the recorded steps in the code of runs in flight, and branch new code on a step of its own (see docs/workflows.md, "Changing a workflow").`,
    );
  }
}

/** An event that cannot be sent: a bad task id, event name or payload. Thrown by signal() before anything is written. */
export class TaskEventError extends TaskQueueError {
  constructor(problem: string) {
    super("TASK_EVENT_INVALID", `Cannot send the event: ${problem}`);
  }
}

/**
 * A child a workflow waits for ended dead or cancelled, and the wait's policy is "fail": the parent's run fails (retried
 * by its own policy; a later run waits again, so a child an operator retried is waited for anew).
 */
export class ChildTaskFailedError extends TaskQueueError {
  constructor(
    readonly taskName: string,
    readonly stepName: string,
    readonly child: { id: string; name: string; status: string; error: string | null },
  ) {
    super(
      "TASK_CHILD_FAILED",
      `Step ${JSON.stringify(stepName)} of task "${taskName}": child task "${child.name}" (${child.id}) ended ${child.status}` +
        `${child.error ? `: ${child.error}` : ""}. Pass { onFailure: "collect" } or "continue" to go on without it.`,
    );
  }
}
