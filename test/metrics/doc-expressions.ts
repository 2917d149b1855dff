// The PromQL expressions of docs/grafana-dashboard.json (every panel target's expr) and docs/keda-scaledobject.yaml
// (every trigger's query), with Grafana's variables given the values a dashboard would: all queues, a 1-minute window.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "../cli/cli-process.js";

const GRAFANA_VARIABLES: Record<string, string> = { queue: ".*", __rate_interval: "1m", __interval: "1m", __range: "1m" };

interface GrafanaDashboard {
  panels: Array<{ targets?: Array<{ expr?: string }> }>;
  templating: { list: Array<{ query?: string }> };
}

/** Every panel target's expr, and each variable's label_values(metric, label) as the PromQL that answers it. */
export function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(readFileSync(join(root, "docs/grafana-dashboard.json"), "utf8")) as GrafanaDashboard;
  const targets = dashboard.panels.flatMap((panel) => panel.targets ?? []).flatMap((target) => (target.expr ? [target.expr] : []));
  const variables = dashboard.templating.list.flatMap((variable) => {
    const match = variable.query?.match(/^label_values\((.+),\s*(\w+)\)$/);
    return match ? [`group by (${match[2]}) (${match[1]})`] : [];
  });
  return [...targets, ...variables].map((expr) => expr.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => GRAFANA_VARIABLES[name] ?? whole));
}

export function kedaExpressions(): string[] {
  const text = readFileSync(join(root, "docs/keda-scaledobject.yaml"), "utf8");
  return [...text.matchAll(/^\s*query:\s*(.+)$/gm)].map((match) =>
    match[1]!
      .trim()
      .replace(/^'(.*)'$/, "$1")
      .replace(/''/g, "'"),
  );
}
