// The page frame: head with the stylesheet and script, the top bar with navigation, a notice line, and the content.

import { html, type Html } from "./html.js";
import { formatUtc } from "./format.js";

export interface PageFrame {
  basePath: string;
  title: string;
  active: "overview" | "tasks" | "none";
  readOnly: boolean;
  /** The database's clock, shown in the top bar. */
  now?: Date;
  notice?: { kind: "ok" | "warn" | "bad"; text: string };
  /** Load uPlot (only the overview draws a chart). */
  chart?: boolean;
}

export function layout(frame: PageFrame, content: Html): Html {
  const base = frame.basePath;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <link rel="icon" href="data:," />
        <title>${frame.title} · Task queue</title>
        <link rel="stylesheet" href="${base}/assets/dashboard.css" />
        ${
          frame.chart
            ? html`<link rel="stylesheet" href="${base}/assets/uplot.css" />
                <script src="${base}/assets/uplot.js" defer></script>`
            : ""
        }
        <script src="${base}/assets/dashboard.js" defer></script>
      </head>
      <body>
        <header class="top">
          <span class="brand">Task queue</span>
          <nav>
            <a href="${base}/" class="${frame.active === "overview" ? "active" : ""}">Overview</a>
            <a href="${base}/tasks" class="${frame.active === "tasks" ? "active" : ""}">Tasks</a>
          </nav>
          <div class="right">
            ${frame.readOnly ? html`<span class="badge readonly" title="Actions are disabled">read-only</span>` : ""}
            ${frame.now ? html`<span title="The database's clock; every age on this page is measured against it">DB time ${formatUtc(frame.now)}</span>` : ""}
          </div>
        </header>
        <main>${frame.notice ? html`<div class="notice ${frame.notice.kind}" role="status">${frame.notice.text}</div>` : ""} ${content}</main>
      </body>
    </html>`;
}

/** A page with only a title and a message: errors, refusals, not found. */
export function messagePage(frame: Omit<PageFrame, "active">, message: string): Html {
  return layout(
    { ...frame, active: "none" },
    html`<h1>${frame.title}</h1>
      <div class="panel"><p>${message}</p></div>`,
  );
}
