// Who may use the dashboard: a valid token (bearer header, cookie, or ?token= once), else the authorize callback, else
// only this machine. Requests that a proxy forwarded never count as this machine; DNS-rebound host names are refused.

import { createHmac, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import type { Context } from "hono";
import type { AuthorizeContext, DashboardSettings } from "./dashboard-options.js";
import { generateCookie, getCookie } from "./hono.js";

const TOKEN_COOKIE = "ptq_dashboard_session";

type AccessDecision = { allowed: true; setCookie?: string; redirectTo?: string } | { allowed: false; status: 401 | 403; reason: string };

/** True for 127.0.0.0/8, ::1 and their IPv4-mapped IPv6 forms. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const bare = address.startsWith("::ffff:") ? address.slice(7) : address;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  return bare === "::1" || bare === "0:0:0:0:0:0:0:1";
}

/** True when a Host header names this machine: localhost (and *.localhost), a 127.x address or [::1]. */
export function isLoopbackHost(host: string | null): boolean {
  if (!host) return false;
  const name = host.startsWith("[") ? host.slice(1, host.indexOf("]")) : host.replace(/:\d+$/, "");
  const lower = name.toLowerCase();
  return lower === "localhost" || lower.endsWith(".localhost") || isLoopbackAddress(lower);
}

/** The cookie value that stands for the token: an HMAC of it, so the cookie never holds the token itself. */
function sessionValue(token: string): string {
  return createHmac("sha256", token).update("prisma-task-queue dashboard session").digest("hex");
}

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Decides whether the request of `c` may proceed under `settings`. */
export async function checkAccess<C extends Context>(
  c: C,
  context: AuthorizeContext,
  settings: Pick<DashboardSettings, "token" | "authorize" | "basePath">,
): Promise<AccessDecision> {
  const { token } = settings;
  const request = c.req.raw;
  const url = new URL(request.url);
  if (token !== undefined) {
    const header = request.headers.get("authorization");
    const bearer = header?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
    const fromQuery = url.searchParams.get("token");
    const cookie = getCookie(c, TOKEN_COOKIE);
    const presented = bearer ?? fromQuery ?? undefined;
    if (presented !== undefined) {
      if (!same(presented, token)) return { allowed: false, status: 401, reason: "The token is wrong." };
      if (fromQuery === null || bearer !== undefined) return { allowed: true };
      url.searchParams.delete("token");
      return {
        allowed: true,
        setCookie: generateCookie(TOKEN_COOKIE, sessionValue(token), {
          path: settings.basePath || "/",
          httpOnly: true,
          sameSite: "Strict",
          secure: url.protocol === "https:",
        }),
        redirectTo: request.method === "GET" ? `${url.pathname}${url.search}` : undefined,
      };
    }
    if (cookie !== undefined && same(cookie, sessionValue(token))) return { allowed: true };
  }
  if (settings.authorize) {
    if (await settings.authorize(request, context)) return { allowed: true };
    return token !== undefined
      ? { allowed: false, status: 401, reason: "Send the dashboard token (Authorization: Bearer …) or sign in." }
      : { allowed: false, status: 403, reason: "Your request was not authorized." };
  }
  if (context.loopback) {
    if (isLoopbackHost(request.headers.get("host"))) return { allowed: true };
    return {
      allowed: false,
      status: 403,
      reason:
        "This dashboard answers this machine under localhost or 127.0.0.1 only (other host names could be DNS rebinding). " +
        "Open it as http://127.0.0.1:<port>/, or set a token to serve it under other names.",
    };
  }
  return token !== undefined
    ? {
        allowed: false,
        status: 401,
        reason: "Requests from other machines need the dashboard token: send Authorization: Bearer <token> or open the page once with ?token=<token>.",
      }
    : {
        allowed: false,
        status: 403,
        reason:
          "Requests from other machines are refused: this dashboard has no token and no authorize callback. " +
          "Set TASK_RUNNER_DASHBOARD_TOKEN (or the token option) or pass authorize to createDashboard().",
      };
}

/** The AuthorizeContext of a request from `remoteAddress`: loopback only when no proxy header says otherwise. */
export function requestContext(request: Request, remoteAddress: string | undefined, incoming?: AuthorizeContext["incoming"]): AuthorizeContext {
  const forwarded = ["forwarded", "x-forwarded-for", "x-real-ip"].some((name) => request.headers.has(name));
  return { remoteAddress, loopback: !forwarded && isLoopbackAddress(remoteAddress), incoming };
}
