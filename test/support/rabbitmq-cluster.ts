// The three-node RabbitMQ cluster of scripts/rabbitmq-cluster.sh, driven from tests and the soak: start it, stop a
// node's app, SIGKILL, SIGSTOP and SIGCONT a node's process, and wait until the cluster has all three nodes again.

import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL("../../scripts/rabbitmq-cluster.sh", import.meta.url));

/** The nodes, numbered as the script numbers them. */
export const CLUSTER_NODES = [1, 2, 3] as const;
export type ClusterNode = (typeof CLUSTER_NODES)[number];

/** The AMQP port of node `n`: 5672 + n. */
export function nodePort(n: ClusterNode): number {
  return 5672 + n;
}

/** The node a URL such as amqp://guest:***@127.0.0.1:5674 points at, or undefined. */
export function nodeOfUrl(url: unknown): ClusterNode | undefined {
  if (typeof url !== "string") return undefined;
  const port = Number(new URL(url).port);
  return CLUSTER_NODES.find((n) => nodePort(n) === port);
}

async function script(args: string[], timeoutMs: number): Promise<string> {
  const { stdout } = await run(SCRIPT, args, { timeout: timeoutMs, maxBuffer: 1 << 20 });
  return stdout.trim();
}

/** Starts the cluster (or reuses a running one) and returns its amqpUrl: the three node URLs separated by commas. */
export async function startCluster(): Promise<string> {
  const out = await script(["start"], 240_000);
  return out.split("\n").at(-1)!;
}

/** Whether this machine can run the cluster: the script's start needs the broker's user and its CLI. */
export async function clusterAvailable(): Promise<boolean> {
  try {
    await run("sh", ["-c", "command -v rabbitmq-server && id rabbitmq"], { timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

/** Runs rabbitmqctl against node `n`. */
export function ctl(n: ClusterNode, ...args: string[]): Promise<string> {
  return script(["ctl", String(n), ...args], 120_000);
}

/** The operating-system process of node `n`. */
export async function nodePid(n: ClusterNode): Promise<number> {
  return Number(await script(["pid", String(n)], 10_000));
}

/** Sends `signal` to node `n`'s process (SIGKILL, SIGSTOP, SIGCONT). */
export async function signalNode(n: ClusterNode, signal: NodeJS.Signals): Promise<void> {
  process.kill(await nodePid(n), signal);
}

/** The nodes that node `n` sees running, and whether it sees a partition; undefined when it does not answer. */
export async function clusterView(n: ClusterNode): Promise<{ running: string[]; partitions: number } | undefined> {
  try {
    const out = await ctl(n, "-q", "cluster_status", "--formatter", "json");
    const status = JSON.parse(out) as { running_nodes?: string[]; partitions?: Record<string, string[]> };
    const partitions = Object.values(status.partitions ?? {}).reduce((sum, list) => sum + list.length, 0);
    return { running: [...(status.running_nodes ?? [])].sort(), partitions };
  } catch {
    return undefined;
  }
}

/**
 * Resolves once node `ask` sees all three nodes running and no partition (its answer covers the partitions every
 * running node saw). Asked once a second: each rabbitmqctl call starts an Erlang VM, seconds of CPU on a loaded machine.
 */
export async function waitClusterWhole(timeoutMs = 180_000, ask: ClusterNode = 1): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = await clusterView(ask);
    if (view && view.running.length === 3 && view.partitions === 0) return;
    if (Date.now() > deadline) throw new Error(`the cluster did not become whole within ${timeoutMs} ms: ptq${ask} sees ${JSON.stringify(view)}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** Starts any node that is not running (after a SIGKILL) and waits until the cluster is whole. */
export async function restartMissingNodes(): Promise<void> {
  await startCluster();
  await waitClusterWhole();
}

/** Starts node `n` again after a SIGKILL (it rejoins by itself) and waits until the cluster is whole. */
export async function restartNode(n: ClusterNode): Promise<void> {
  await script(["start-node", String(n)], 240_000);
  await waitClusterWhole(180_000, otherNode(n));
}

/**
 * SIGCONTs a frozen node and waits until the cluster is whole. A node frozen past the net tick time comes back
 * partitioned from the others (RabbitMQ 3.10 with pause_minority does not pause it, and autoheal was seen restarting
 * a node over and over): as an operator would, its app is restarted once a partition shows, which rejoins it.
 */
export async function resumeNode(n: ClusterNode, timeoutMs = 180_000): Promise<void> {
  await signalNode(n, "SIGCONT");
  const ask = otherNode(n);
  const deadline = Date.now() + timeoutMs;
  // A resumed node whose app the others still count out after this long, with no partition seen, has stopped its app
  // (or is stuck rejoining): its app is restarted, as an operator would, once.
  const restartAppAt = Date.now() + 60_000;
  let restarted = false;
  for (;;) {
    const view = await clusterView(ask);
    if (view && view.running.length === 3 && view.partitions === 0) return;
    if (view && (view.partitions > 0 || (!restarted && Date.now() > restartAppAt))) {
      restarted = true;
      await ctl(n, "stop_app").catch(() => {}); // an app that stopped by itself refuses stop_app; start_app is what counts
      await ctl(n, "start_app");
      continue;
    }
    if (Date.now() > deadline) throw new Error(`the cluster did not become whole within ${timeoutMs} ms: ptq${ask} sees ${JSON.stringify(view)}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** A node other than `n`, to ask about the cluster while `n` is faulted. */
export function otherNode(n: ClusterNode): ClusterNode {
  return n === 1 ? 2 : 1;
}
