// The soak on a three-node RabbitMQ cluster (--rabbitmq-cluster): a proxy per node, so that the broker faults of every
// soak still cut all connections, and the cluster's own faults, one at a time beside the others: a node SIGKILLed and
// restarted, the node of a worker stopped and started, a node frozen past the net tick time and resumed. For each it
// reports how long the workers on that node took to consume wake-ups again.

import { amqpUrls } from "../../src/amqp-url.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import type { LogLine } from "../support/worker-process.js";
import {
  CLUSTER_NODES,
  ctl,
  nodeOfUrl,
  restartMissingNodes,
  restartNode,
  resumeNode,
  otherNode,
  signalNode,
  waitClusterWhole,
  type ClusterNode,
} from "../support/rabbitmq-cluster.js";
import type { SeededRandom } from "./seeded-random.js";

export const CLUSTER_FAULT_KINDS = ["kill-broker-node", "stop-worker-node", "freeze-broker-node"] as const;
export type ClusterFaultKind = (typeof CLUSTER_FAULT_KINDS)[number];

/** Longer than the nodes' net tick time (10 s, scripts/rabbitmq-cluster.sh), so the others count a frozen node down. */
const FREEZE_MS = 15_000;

/** The proxies of one set of clients: one per node; every fault of the proxies acts on all of them. */
export class ProxySet {
  private constructor(
    private readonly proxies: TcpProxy[],
    private readonly urls: string[],
  ) {}

  static async start(urls: string[]): Promise<ProxySet> {
    const proxies = await Promise.all(urls.map((url) => new TcpProxy(new URL(url).hostname, Number(new URL(url).port || 5672)).start()));
    return new ProxySet(proxies, urls);
  }

  /** `url` (the nodes' URLs, separated by commas, in the order given to start()) through the proxies. */
  route(url: string): string {
    return amqpUrls(url)
      .map((node, i) => this.proxies[i]!.route(node))
      .join(",");
  }

  /** The node behind the proxy listening on `port`. */
  nodeOfPort(port: number): ClusterNode | undefined {
    const index = this.proxies.findIndex((proxy) => proxy.port === port);
    return index < 0 ? undefined : nodeOfUrl(this.urls[index]);
  }

  cut(): void {
    for (const proxy of this.proxies) proxy.cut();
  }
  blackhole(): void {
    for (const proxy of this.proxies) proxy.blackhole();
  }
  refuse(): void {
    for (const proxy of this.proxies) proxy.refuse();
  }
  restore(): void {
    for (const proxy of this.proxies) proxy.restore();
  }
  async stop(): Promise<void> {
    await Promise.all(this.proxies.map((proxy) => proxy.stop()));
  }
}

/** One cluster fault as it happened. */
interface ClusterFaultRecord {
  kind: ClusterFaultKind;
  node: ClusterNode;
  /** When the fault took effect: the signal sent, or stop_app returned (rabbitmqctl itself takes seconds to minutes under load). */
  at: number;
  /** When the node was back and the cluster whole again. */
  undoneAt: number;
}

type WorkerLine = LogLine & { pid: number };

/** Runs the cluster faults back to back in a seeded rotation while `until()` holds; records each for the report. */
export class ClusterFaults {
  readonly records: ClusterFaultRecord[] = [];
  readonly counts: Record<ClusterFaultKind, number> = { "kill-broker-node": 0, "stop-worker-node": 0, "freeze-broker-node": 0 };
  readonly errors: string[] = [];

  constructor(
    private readonly random: SeededRandom,
    private readonly workerProxies: ProxySet,
    private readonly workerLines: () => WorkerLine[],
    private readonly print: (line: string) => void,
  ) {}

  async run(until: () => boolean): Promise<void> {
    let order: ClusterFaultKind[] = [];
    while (until()) {
      if (order.length === 0) order = this.shuffled();
      const kind = order.pop()!;
      try {
        await this.inject(kind);
      } catch (error) {
        this.errors.push(`${kind}: ${(error as Error).message}`);
        this.print(`cluster fault ${kind} failed: ${(error as Error).message}`);
        await restartMissingNodes().catch(() => {});
      }
    }
  }

  private async inject(kind: ClusterFaultKind): Promise<void> {
    // A node a worker is on, so that its failover is timed; a kill hits any node (the restart and rejoin are what it tests).
    const node = kind === "kill-broker-node" ? this.randomNode() : (this.workerNode() ?? this.randomNode());
    let at = Date.now();
    this.print(`cluster fault ${new Date(at).toISOString()} ${kind} ptq${node}`);
    switch (kind) {
      case "kill-broker-node":
        await signalNode(node, "SIGKILL");
        await restartNode(node);
        break;
      case "stop-worker-node":
        await ctl(node, "stop_app");
        at = Date.now();
        await new Promise((resolve) => setTimeout(resolve, this.random.int(1000, 4000)));
        await ctl(node, "start_app");
        await waitClusterWhole(180_000, otherNode(node));
        break;
      case "freeze-broker-node":
        await signalNode(node, "SIGSTOP");
        try {
          await new Promise((resolve) => setTimeout(resolve, FREEZE_MS));
        } finally {
          await resumeNode(node);
        }
        break;
    }
    this.counts[kind] += 1;
    const record = { kind, node, at, undoneAt: Date.now() };
    this.records.push(record);
    this.print(`cluster fault ${kind} ptq${node} undone after ${record.undoneAt - at} ms`);
  }

  private shuffled(): ClusterFaultKind[] {
    const kinds = [...CLUSTER_FAULT_KINDS];
    for (let i = kinds.length - 1; i > 0; i--) {
      const j = this.random.int(0, i);
      [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
    }
    return kinds;
  }

  private randomNode(): ClusterNode {
    return CLUSTER_NODES[this.random.int(0, CLUSTER_NODES.length - 1)]!;
  }

  /** The node that the worker connected last is on now. */
  private workerNode(): ClusterNode | undefined {
    const connected = this.workerLines().filter((line) => line.message === "broker connected" && typeof line.url === "string");
    const last = connected.at(-1);
    return last ? this.workerProxies.nodeOfPort(Number(new URL(last.url as string).port)) : undefined;
  }

  /**
   * Per fault: the workers whose connection the fault broke (to the faulted node, with the error that fault gives: the
   * socket closed for a kill, CONNECTION_FORCED for stop_app, missed heartbeats for a freeze; a proxy cut resets
   * instead), how long after the fault took effect each noticed, and how long after noticing it consumed wake-ups again
   * (through another node); undefined for one that did not (killed meanwhile by another fault).
   */
  resumes(): Array<ClusterFaultRecord & { workers: Array<{ noticedMs: number; resumedMs: number | undefined }> }> {
    const lines = this.workerLines();
    const causedBy: Record<ClusterFaultKind, RegExp> = {
      "kill-broker-node": /Unexpected close|ECONNREFUSED|socket hang up/,
      "stop-worker-node": /CONNECTION[-_]FORCED|shutdown/,
      "freeze-broker-node": /[Hh]eartbeat/,
    };
    return this.records.map((record, index) => {
      const affected = new Map<number, { noticedMs: number; resumedMs: number | undefined }>();
      for (const line of lines) {
        const time = Date.parse(String(line.time));
        if (line.message !== "broker connection lost" || typeof line.url !== "string" || !causedBy[record.kind].test(String(line.error))) continue;
        // stop_app takes effect before rabbitmqctl returns
        const from = record.kind === "stop-worker-node" ? Math.max(record.at - 60_000, this.records[index - 1]?.undoneAt ?? 0) : record.at;
        if (time < from || time > record.undoneAt || affected.has(line.pid)) continue;
        if (this.workerProxies.nodeOfPort(Number(new URL(line.url).port)) !== record.node) continue;
        const resumed = lines.find((next) => next.pid === line.pid && next.message === "consuming wake-ups" && Date.parse(String(next.time)) >= time);
        affected.set(line.pid, { noticedMs: Math.max(0, time - record.at), resumedMs: resumed ? Date.parse(String(resumed.time)) - time : undefined });
      }
      return { ...record, workers: [...affected.values()] };
    });
  }

  /** One line per fault for the soak's output. */
  report(): string[] {
    return this.resumes().map((fault) => {
      const shown =
        fault.workers.length === 0
          ? "no worker was on it"
          : fault.workers
              .map(
                ({ noticedMs, resumedMs }) => `noticed after ${noticedMs} ms, consuming again ${resumedMs === undefined ? "never (killed?)" : `${resumedMs} ms later`}`,
              )
              .join("; ");
      return `${new Date(fault.at).toISOString()} ${fault.kind} ptq${fault.node} (node back after ${fault.undoneAt - fault.at} ms): workers on it: ${shown}`;
    });
  }

  /** The longest time from a fault taking effect to a worker on that node consuming again, per kind, in ms (0: none was on one). */
  worstResumeMs(kind: ClusterFaultKind): number {
    const times = this.resumes()
      .filter((fault) => fault.kind === kind)
      .flatMap((fault) => fault.workers.flatMap(({ noticedMs, resumedMs }) => (resumedMs === undefined ? [] : [noticedMs + resumedMs])));
    return Math.max(0, ...times);
  }
}
