// A Prometheus server of the test's own: Debian's prometheus, on a free port, with a config and a data folder in a temp
// folder, scraping the given targets every second; queried through its HTTP API (/api/v1/query).

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.js";
import { ServerProcess } from "./server-process.js";
import { waitUntil } from "./wait.js";

/** One scrape target: a job name and the host:port whose `path` (default /metrics) Prometheus scrapes. */
export interface ScrapeTarget {
  job: string;
  address: string;
  path?: string;
  /** Sent as `Authorization: Bearer …`. */
  bearerToken?: string;
}

/** One series of an instant query's answer. */
export interface QuerySeries {
  metric: Record<string, string>;
  value: number;
}

export class Prometheus {
  private constructor(
    private readonly running: ServerProcess,
    private readonly dir: string,
    readonly port: number,
  ) {}

  static async start(targets: readonly ScrapeTarget[]): Promise<Prometheus> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "ptq-prometheus-"));
    chmodSync(dir, 0o755);
    const jobs = targets.map((target) =>
      [
        `  - job_name: ${JSON.stringify(target.job)}`,
        `    metrics_path: ${JSON.stringify(target.path ?? "/metrics")}`,
        ...(target.bearerToken ? ["    authorization:", `      credentials: ${JSON.stringify(target.bearerToken)}`] : []),
        "    static_configs:",
        `      - targets: [${JSON.stringify(target.address)}]`,
      ].join("\n"),
    );
    writeFileSync(join(dir, "prometheus.yml"), ["global:", "  scrape_interval: 1s", "  scrape_timeout: 1s", "scrape_configs:", ...jobs, ""].join("\n"));
    const args = [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ];
    const url = `http://127.0.0.1:${port}`;
    try {
      const running = await ServerProcess.start("prometheus", args, `prometheus to be ready on port ${port}`, async () => {
        return (await fetch(`${url}/-/ready`).catch(() => undefined))?.ok === true;
      });
      return new Prometheus(running, dir, port);
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** An instant query; throws with Prometheus's own error when the expression does not parse or fails. */
  async query(expression: string): Promise<QuerySeries[]> {
    const response = await fetch(`${this.url}/api/v1/query?${new URLSearchParams({ query: expression }).toString()}`);
    const body = (await response.json()) as {
      status: string;
      error?: string;
      data?: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> | [number, string] };
    };
    if (body.status !== "success" || !body.data) throw new Error(`Prometheus refused ${expression}: ${body.error ?? response.status}`);
    const { resultType, result } = body.data;
    if (resultType === "scalar") return [{ metric: {}, value: Number((result as [number, string])[1]) }];
    return (result as Array<{ metric: Record<string, string>; value: [number, string] }>).map((series) => ({ metric: series.metric, value: Number(series.value[1]) }));
  }

  /** Polls `expression` until its single value satisfies `expected` (a number: equal to it); resolves that value. */
  async waitForValue(expression: string, expected: number | ((value: number) => boolean), timeoutMs = 20_000): Promise<number> {
    const test = typeof expected === "number" ? (value: number) => value === expected : expected;
    let last: QuerySeries[] = [];
    try {
      await waitUntil(
        async () => {
          last = await this.query(expression);
          return last.length === 1 && test(last[0]!.value);
        },
        expression,
        timeoutMs,
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}; last answer: ${JSON.stringify(last)}`, { cause: error });
    }
    return last[0]!.value;
  }

  /** Resolves once every target of `job` is up (scraped successfully). */
  async waitForTarget(job: string, timeoutMs = 20_000): Promise<void> {
    await this.waitForValue(`min(up{job=${JSON.stringify(job)}})`, 1, timeoutMs);
  }

  async stop(): Promise<void> {
    await this.running.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
