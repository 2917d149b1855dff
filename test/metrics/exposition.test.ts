// The exposition format on its own: HELP and TYPE lines, escaped label values and help text, cumulative histogram
// buckets ending at +Inf with _sum and _count; and promtool, Prometheus's own checker, accepts what the worker serves.

import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { formatExposition, escapeLabelValue } from "../../src/metrics/exposition.js";
import { Counter, Histogram } from "../../src/metrics/instruments.js";
import { TaskMetrics } from "../../src/metrics/task-metrics.js";

const run = { taskId: "t", taskName: "send-email", queue: "mail", attempt: 1, dialect: "postgresql", transport: "notify" };

describe("formatExposition", () => {
  it("writes HELP and TYPE once per family and escapes label values and help", () => {
    const counter = new Counter("demo_total", "Line one\nback\\slash", ["queue"]);
    counter.add({ queue: 'a "quoted"\nqueue\\name' }, 2);
    counter.add({ queue: "plain" });
    counter.add({ queue: "plain" }, -5); // a counter never goes down
    expect(formatExposition([counter.family()])).toBe(
      [
        "# HELP demo_total Line one\\nback\\\\slash",
        "# TYPE demo_total counter",
        'demo_total{queue="a \\"quoted\\"\\nqueue\\\\name"} 2',
        'demo_total{queue="plain"} 1',
        "",
      ].join("\n"),
    );
    expect(escapeLabelValue('x"\\\n')).toBe('x\\"\\\\\\n');
  });

  it("writes histograms as cumulative buckets, +Inf, _sum and _count", () => {
    const histogram = new Histogram("wait_seconds", "Waits.", ["queue"], [0.1, 1, 10]);
    for (const value of [0.05, 0.1, 0.5, 5, 50, 500]) histogram.observe({ queue: "q" }, value);
    expect(formatExposition([histogram.family()])).toBe(
      [
        "# HELP wait_seconds Waits.",
        "# TYPE wait_seconds histogram",
        'wait_seconds_bucket{queue="q",le="0.1"} 2',
        'wait_seconds_bucket{queue="q",le="1"} 3',
        'wait_seconds_bucket{queue="q",le="10"} 4',
        'wait_seconds_bucket{queue="q",le="+Inf"} 6',
        'wait_seconds_sum{queue="q"} 555.65',
        'wait_seconds_count{queue="q"} 6',
        "",
      ].join("\n"),
    );
  });

  it("writes gauges and label-less series, and nothing for no family", () => {
    expect(formatExposition([])).toBe("");
    expect(formatExposition([{ name: "up_now", help: "Up.", type: "gauge", samples: [{ labels: {}, value: Infinity }] }])).toBe(
      "# HELP up_now Up.\n# TYPE up_now gauge\nup_now +Inf\n",
    );
  });
});

describe("TaskMetrics", () => {
  it("counts each run once, in its outcome's counter, and passes promtool's check", () => {
    const metrics = new TaskMetrics();
    metrics.declareRuns([{ queue: "mail", task: "send-email" }]);
    metrics.declareCleaner(["mail"]);
    const { listener } = metrics;
    for (const outcome of ["succeeded", "succeeded", "retry", "dead", "lost", "released"] as const) {
      listener.taskStarted!(run, 1500);
      listener.taskEnded!(run, outcome, 20, undefined);
    }
    listener.leasesRecovered!({ queue: "mail", retried: 2, dead: 1 });
    listener.wakeupsRepublished!({ count: 4 });
    const text = formatExposition(metrics.families());
    const value = (series: string) =>
      Number(
        text
          .split("\n")
          .find((line) => line.startsWith(`${series} `))
          ?.split(" ")[1],
      );
    const labels = '{queue="mail",task="send-email"}';
    expect(value(`prisma_task_queue_tasks_started_total${labels}`)).toBe(6);
    expect(value(`prisma_task_queue_tasks_succeeded_total${labels}`)).toBe(2);
    for (const name of ["failed", "dead", "lost", "released"]) expect(value(`prisma_task_queue_tasks_${name}_total${labels}`)).toBe(1);
    expect(value('prisma_task_queue_task_processing_seconds_count{queue="mail",task="send-email",outcome="succeeded"}')).toBe(2);
    expect(value('prisma_task_queue_task_wait_seconds_bucket{queue="mail",task="send-email",le="1"}')).toBe(0);
    expect(value('prisma_task_queue_task_wait_seconds_bucket{queue="mail",task="send-email",le="2.5"}')).toBe(6);
    expect(value('prisma_task_queue_lease_recoveries_total{queue="mail",outcome="retry"}')).toBe(2);
    expect(value('prisma_task_queue_lease_recoveries_total{queue="mail",outcome="dead"}')).toBe(1);
    expect(value("prisma_task_queue_wakeups_republished_total")).toBe(4);
    // promtool lints names, units and suffixes as Prometheus's guidelines say; it prints nothing when all is well.
    expect(execFileSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" })).toBe("");
  });
});
