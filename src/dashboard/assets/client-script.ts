// The dashboard's only script, served as /assets/dashboard.js: draws the throughput and scaling-signal charts with
// uPlot from JSON the page embeds, asks before destructive actions, shows times in the browser's zone and runs the opt-in auto-refresh.

export const CLIENT_SCRIPT = `(() => {
  "use strict";
  document.addEventListener("submit", (event) => {
    const message = event.target.getAttribute && event.target.getAttribute("data-confirm");
    if (message && !window.confirm(message)) event.preventDefault();
  });

  for (const el of document.querySelectorAll("time[datetime]")) {
    const date = new Date(el.getAttribute("datetime"));
    if (!Number.isNaN(date.getTime())) el.title = date.toLocaleString() + " (" + el.title + ")";
  }

  const refresh = document.getElementById("auto-refresh");
  if (refresh) {
    refresh.checked = localStorage.getItem("ptq-auto-refresh") === "1";
    let timer;
    const arm = () => {
      clearTimeout(timer);
      if (refresh.checked) timer = setTimeout(() => location.reload(), 10000);
    };
    refresh.addEventListener("change", () => {
      localStorage.setItem("ptq-auto-refresh", refresh.checked ? "1" : "0");
      arm();
    });
    arm();
  }

  const data = document.getElementById("throughput-data");
  const target = document.getElementById("throughput-chart");
  if (data && target && window.uPlot) {
    const series = JSON.parse(data.textContent);
    const width = () => Math.max(320, target.clientWidth);
    const options = {
      width: width(),
      height: 230,
      tzDate: (ts) => window.uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (u, min, max) => [0, Math.max(4, max * 1.1)] } },
      axes: [
        { stroke: "#667085", grid: { stroke: "#eef0f3" }, ticks: { stroke: "#e2e5ea" },
          values: (u, splits) => splits.map((v) => new Date(v * 1000).toISOString().slice(11, 16)) },
        { stroke: "#667085", grid: { stroke: "#eef0f3" }, ticks: { stroke: "#e2e5ea" }, size: 50 },
      ],
      series: [
        { label: "minute (UTC)", value: (u, v) => v == null ? "" : new Date(v * 1000).toISOString().slice(11, 16) },
        { label: "succeeded / min", stroke: "#1b7a43", width: 2, fill: "rgba(27,122,67,0.12)", points: { show: false } },
        { label: "dead / min", stroke: "#b42318", width: 2, fill: "rgba(180,35,24,0.10)", points: { show: false } },
      ],
    };
    const chart = new window.uPlot(options, [series.minute, series.succeeded, series.dead], target);
    window.addEventListener("resize", () => chart.setSize({ width: width(), height: 230 }));
  }

  const signalData = document.getElementById("signal-data");
  const signalTarget = document.getElementById("signal-chart");
  if (signalData && signalTarget && window.uPlot) {
    const signal = JSON.parse(signalData.textContent);
    const x = signal.queues.map((_, i) => i);
    const width = () => Math.max(320, signalTarget.clientWidth);
    const bars = (offset) => window.uPlot.paths.bars({ size: [0.3, 48], align: offset });
    const options = {
      width: width(),
      height: 200,
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false, range: [-0.5, x.length - 0.5] }, y: { range: (u, min, max) => [0, Math.max(1, max * 1.15)] } },
      axes: [
        { stroke: "#667085", grid: { show: false }, ticks: { show: false }, splits: () => x, values: (u, splits) => splits.map((i) => signal.queues[i] ?? "") },
        { stroke: "#667085", grid: { stroke: "#eef0f3" }, ticks: { stroke: "#e2e5ea" }, size: 50 },
      ],
      series: [
        { label: "queue", value: (u, i) => i == null ? "" : signal.queues[i] },
        { label: "arrival / s", stroke: "#175cd3", fill: "rgba(23,92,211,0.35)", paths: bars(-1), points: { show: false } },
        { label: "completion / s", stroke: "#1b7a43", fill: "rgba(27,122,67,0.35)", paths: bars(1), points: { show: false } },
      ],
    };
    const chart = new window.uPlot(options, [x, signal.arrival, signal.completion], signalTarget);
    window.addEventListener("resize", () => chart.setSize({ width: width(), height: 200 }));
  }
})();
`;
