// The demo's verdict, checked from the database: every committed task finished and ran (successfully) exactly once;
// no rolled-back task has a row or ever ran; nothing is stuck.

import type { Store } from "../src/index.js";
import type { LoadResult } from "./load.js";

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** One row of demo_runs. */
export interface Run {
  taskId: string;
  outcome: string;
}

export async function verdict(store: Store, runs: readonly Run[], load: LoadResult): Promise<Check[]> {
  const unique = [...new Set(load.committed)];
  const tasks = (await Promise.all(unique.map((id) => store.findTask(id)))).filter((task) => task !== undefined);
  const successes = new Map<string, number>();
  const ranAtAll = new Set<string>();
  for (const run of runs) {
    ranAtAll.add(run.taskId);
    if (run.outcome === "succeeded") successes.set(run.taskId, (successes.get(run.taskId) ?? 0) + 1);
  }
  const notFinished = tasks.filter((task) => task.status !== "succeeded");
  const wrongRuns = tasks.filter((task) => successes.get(task.id) !== 1);
  const ghosts = (await Promise.all(load.rolledBack.map((id) => store.findTask(id)))).filter((task) => task !== undefined).length;
  const ghostRuns = load.rolledBack.filter((id) => ranAtAll.has(id)).length;
  const stuck = (await store.countTasks()).filter((row) => row.status === "pending" || row.status === "running").reduce((sum, row) => sum + row.count, 0);
  const retried = tasks.filter((task) => task.attempts > 1).length;
  return [
    { name: "committed → row exists", ok: tasks.length === unique.length, detail: `${tasks.length} of ${unique.length} committed tasks have a row` },
    {
      name: "committed → finished",
      ok: notFinished.length === 0,
      detail: `${tasks.length - notFinished.length} succeeded, ${notFinished.length} not (${retried} needed retries)`,
    },
    { name: "committed → ran once", ok: wrongRuns.length === 0, detail: `${tasks.length - wrongRuns.length} tasks have exactly one successful run` },
    { name: "rolled back → no row", ok: ghosts === 0, detail: `${load.rolledBack.length} rolled-back tasks, ${ghosts} rows` },
    { name: "rolled back → never ran", ok: ghostRuns === 0, detail: `${ghostRuns} runs of rolled-back tasks` },
    { name: "nothing stuck", ok: stuck === 0, detail: `${stuck} tasks pending or running at the end` },
  ];
}
