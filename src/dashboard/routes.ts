// The dashboard's routes on a Hono app: the access check and security headers on every request, the three pages,
// the actions (POST + CSRF, refused when read-only), the static assets, and /metrics for Prometheus.

import { StoreProblemError } from "../store/store-problem.js";
import type { Context, Hono as HonoApp } from "hono";
import type { IncomingMessage } from "node:http";
import { queueNameProblem } from "../names.js";
import { actionNotice, noticeFor, runAction, type ActionName } from "./actions.js";
import { checkAccess, requestContext } from "./access.js";
import { assets } from "./assets/asset-routes.js";
import type { DashboardContext } from "./dashboard-context.js";
import { CSRF_FIELD, csrfProblem, csrfToken } from "./csrf.js";
import { parseListQuery } from "./list-query.js";
import { Hono, secureHeaders } from "./hono.js";
import { overviewData } from "./overview-data.js";
import { html, type Html } from "./pages/html.js";
import { layout, messagePage, type PageFrame } from "./pages/layout.js";
import { overviewPage } from "./pages/overview-page.js";
import { taskDetailPage } from "./pages/task-detail-page.js";
import { taskListPage } from "./pages/task-list-page.js";
import { isTaskId } from "../store/task-id.js";
import { errorMessage } from "../error-text.js";
import { DashboardMetrics, EXPOSITION_CONTENT_TYPE } from "./dashboard-metrics.js";

/** What the Node adapter or the fetch caller passes along with each request. */
interface RequestBindings {
  remoteAddress?: string;
  incoming?: IncomingMessage;
}

type Env = { Bindings: RequestBindings; Variables: { csrf: string } };

/**
 * The security headers of every response, refusals and errors included: this CSP, nosniff, no framing, the referrer
 * kept to the dashboard's own origin. Hono's other defaults stay off, so a dashboard mounted in an app sends no headers
 * that reach beyond its pages (Strict-Transport-Security, say).
 */
const SECURITY_HEADERS: Parameters<typeof secureHeaders>[0] = {
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", "data:"],
    connectSrc: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
  },
  xContentTypeOptions: true,
  xFrameOptions: "DENY",
  referrerPolicy: "same-origin",
  crossOriginResourcePolicy: false,
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  strictTransportSecurity: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
};

export function dashboardRoutes(context: DashboardContext): HonoApp<Env> {
  const { settings } = context;
  const base = settings.basePath;
  const app = new Hono<Env>({ strict: false });
  const root = base ? app.basePath(base) : app;

  root.use("*", secureHeaders(SECURITY_HEADERS));

  root.use("*", async (c, next) => {
    const request = c.req.raw;
    const access = await checkAccess(c, requestContext(request, c.env?.remoteAddress, c.env?.incoming), settings);
    if (!access.allowed) {
      c.header("Cache-Control", "no-store");
      if (access.status === 401) c.header("WWW-Authenticate", 'Bearer realm="task queue dashboard"');
      return c.html(messagePage(frame(access.status === 401 ? "Token required" : "Access refused"), access.reason), access.status);
    }
    if (access.redirectTo) {
      c.header("Set-Cookie", access.setCookie, { append: true });
      c.header("Cache-Control", "no-store");
      return c.redirect(access.redirectTo, 303);
    }
    if (access.setCookie) c.header("Set-Cookie", access.setCookie, { append: true });
    const csrf = csrfToken(c, base);
    if (csrf.setCookie) c.header("Set-Cookie", csrf.setCookie, { append: true });
    c.set("csrf", csrf.token);
    await next();
  });

  root.get("/assets/:file", (c) => {
    const file = assets().get(c.req.param("file"));
    if (!file) return c.text("not found", 404);
    if (c.req.header("if-none-match") === file.etag) return c.body(null, 304);
    return c.body(file.body, 200, { "Content-Type": file.type, ETag: file.etag, "Cache-Control": "private, max-age=300" });
  });

  // Prometheus scrapes the database-wide gauges here, through the same access check as the pages (a token: bearer).
  const metrics = new DashboardMetrics(context);
  root.get("/metrics", async (c) => {
    c.header("Cache-Control", "no-store");
    try {
      return c.body(await metrics.text(), 200, { "Content-Type": EXPOSITION_CONTENT_TYPE });
    } catch (error) {
      settings.logger.warn("dashboard metrics could not be read", { error: errorMessage(error) });
      return c.text(`metrics unavailable: ${errorMessage(error)}\n`, 503);
    }
  });

  root.get("/", async (c) => {
    const data = await overviewData(context);
    return page(c, { ...frame("Overview"), active: "overview", now: data.now, chart: true }, overviewPage(data, { ...view(c), wakeups: context.wakeups.enabled }));
  });

  root.get("/tasks", async (c) => {
    const query = parseListQuery(new URL(c.req.url).searchParams);
    const browse = await context.browseIndex();
    const allGroups = browse ? await context.store.listTaskGroups() : [];
    const groups = browse
      ? allGroups.filter((g) => (!query.filter.queue || g.queue === query.filter.queue) && (!query.filter.name || g.name === query.filter.name))
      : undefined;
    const [result, now] = await Promise.all([context.store.listTasks(query.filter, query.page, groups), context.store.now()]);
    const body = taskListPage(query, result, {
      ...view(c),
      now,
      queues: [...new Set(allGroups.map((g) => g.queue))],
      names: [...new Set(allGroups.map((g) => g.name))].sort(),
    });
    return page(c, { ...frame("Tasks"), active: "tasks", now }, body);
  });

  root.get("/tasks/:id", async (c) => {
    const id = c.req.param("id");
    const task = isTaskId(id) ? await context.store.findTask(id.toLowerCase()) : undefined;
    if (!task)
      return page(
        c,
        frame("Task not found"),
        notFound(`No task has the id "${id}". It may have been deleted when it succeeded (deleteOnSuccess) or pruned after its retention.`),
        404,
      );
    // A database without the workflow migrations has no steps or children: the task is shown all the same.
    const none = (error: unknown): [] => {
      if (error instanceof StoreProblemError) return [];
      throw error;
    };
    const steps = await context.store.loadSteps(task.id).catch(none);
    const children = await context.store.childStates(task.id).catch(none);
    return page(
      c,
      { ...frame(task.name), active: "tasks", now: new Date(task.now) },
      taskDetailPage(task, { ...view(c), wakeups: context.wakeups.enabled }, steps, children),
    );
  });

  root.post("/tasks/:id/:action", async (c) => {
    const id = c.req.param("id");
    const action = c.req.param("action");
    if (!isTaskId(id) || !["retry", "cancel", "run-now"].includes(action)) return page(c, frame("Not found"), notFound("No such action."), 404);
    const refused = await refuseAction(c);
    if (refused) return refused;
    const result = await runAction(context, action as ActionName, { id }, c.env?.remoteAddress);
    const notice = actionNotice(result);
    return c.redirect(`${base}/tasks/${id}?done=${notice.code}&n=${notice.count}`, 303);
  });

  root.post("/actions/retry-dead", async (c) => {
    const refused = await refuseAction(c);
    if (refused) return refused;
    const form = await c.req.parseBody();
    const name = typeof form.name === "string" && form.name.length > 0 ? form.name : undefined;
    const result = await runAction(context, "retry-dead", { name }, c.env?.remoteAddress);
    const notice = actionNotice(result);
    const back = typeof form.return === "string" && isLocalPath(form.return, base) ? form.return : `${base}/`;
    return c.redirect(`${back}${back.includes("?") ? "&" : "?"}done=${notice.code}&n=${notice.count}`, 303);
  });

  root.post("/actions/:control{pause|resume}", async (c) => {
    const refused = await refuseAction(c);
    if (refused) return refused;
    const form = await c.req.parseBody();
    const queue = typeof form.queue === "string" ? form.queue : "";
    if (queueNameProblem(queue)) return page(c, frame("Not found"), notFound("No such queue."), 404);
    const result = await runAction(context, c.req.param("control") as ActionName, { queue }, c.env?.remoteAddress);
    const notice = actionNotice(result);
    return c.redirect(`${base}/?done=${notice.code}&n=${notice.count}`, 303);
  });

  root.all("*", (c) => page(c, frame("Not found"), notFound("This page does not exist."), 404));

  root.onError((error, c) => {
    settings.logger.error("dashboard request failed", { method: c.req.method, path: new URL(c.req.url).pathname, error });
    return c.html(messagePage(frame("Something went wrong"), `The dashboard could not answer: ${error.message}`), 500);
  });

  function frame(title: string): PageFrame {
    return { basePath: base, title, active: "none", readOnly: settings.readOnly };
  }

  function view(c: Context<Env>) {
    return { basePath: base, readOnly: settings.readOnly, csrf: c.get("csrf") };
  }

  function page(c: Context<Env>, pageFrame: PageFrame, content: Html, status: 200 | 404 = 200) {
    const params = new URL(c.req.url).searchParams;
    const notice = noticeFor(params.get("done"), Number(params.get("n")));
    c.header("Cache-Control", "no-store");
    return c.html(layout({ ...pageFrame, notice: pageFrame.notice ?? notice }, content), status);
  }

  async function refuseAction(c: Context<Env>): Promise<Response | undefined> {
    if (settings.readOnly) {
      return c.html(messagePage(frame("Read-only"), "This dashboard is read-only: actions are disabled."), 403);
    }
    const form = await c.req.parseBody();
    const problem = csrfProblem(c, form[CSRF_FIELD]);
    if (problem) {
      settings.logger.warn("dashboard action refused by the CSRF check", { path: new URL(c.req.url).pathname, problem, requester: c.env?.remoteAddress });
      return c.html(messagePage(frame("Action refused"), `The action was refused: ${problem}. Reload the page and try again.`), 403);
    }
    return undefined;
  }

  return root;
}

function notFound(message: string): Html {
  return html`<div class="panel"><p>${message}</p></div>`;
}

/** A same-dashboard path (no scheme, no host, no "//"), so a form cannot redirect elsewhere. */
function isLocalPath(path: string, base: string): boolean {
  return path.startsWith(`${base}/`) && !path.startsWith("//") && !/[\\\s]/.test(path);
}
