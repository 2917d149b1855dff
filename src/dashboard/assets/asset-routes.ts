// Static files of the dashboard: its stylesheet and script (from this package) and uPlot's build (from node_modules,
// read once). Served with a short cache lifetime and a content hash as ETag.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { CLIENT_SCRIPT } from "./client-script.js";
import { STYLES } from "./styles.js";

interface Asset {
  body: string;
  type: string;
  etag: string;
}

const require = createRequire(import.meta.url);

function asset(body: string, type: string): Asset {
  return { body, type, etag: `"${createHash("sha1").update(body).digest("hex").slice(0, 16)}"` };
}

let cache: Map<string, Asset> | undefined;

/** The assets by file name: dashboard.css, dashboard.js, uplot.js, uplot.css. */
export function assets(): Map<string, Asset> {
  cache ??= new Map([
    ["dashboard.css", asset(STYLES, "text/css; charset=utf-8")],
    ["dashboard.js", asset(CLIENT_SCRIPT, "text/javascript; charset=utf-8")],
    ["uplot.js", asset(readFileSync(require.resolve("uplot/dist/uPlot.iife.min.js"), "utf8"), "text/javascript; charset=utf-8")],
    ["uplot.css", asset(readFileSync(require.resolve("uplot/dist/uPlot.min.css"), "utf8"), "text/css; charset=utf-8")],
  ]);
  return cache;
}
