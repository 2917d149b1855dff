// CSRF protection of actions: a double-submit cookie. Every page sets a random token in an HttpOnly cookie and puts the
// same token in its forms; a POST passes only when both match and the browser does not call it cross-site.

import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { generateCookie, getCookie } from "./hono.js";

const CSRF_COOKIE = "ptq_dashboard_csrf";
export const CSRF_FIELD = "csrf";

/** The CSRF token of the request of `c`, and the Set-Cookie header (HttpOnly, SameSite=Strict) when it had none yet. */
export function csrfToken<C extends Context>(c: C, basePath: string): { token: string; setCookie?: string } {
  const existing = getCookie(c, CSRF_COOKIE);
  if (existing && /^[0-9a-f]{64}$/.test(existing)) return { token: existing };
  const token = randomBytes(32).toString("hex");
  const secure = new URL(c.req.url).protocol === "https:";
  return { token, setCookie: generateCookie(CSRF_COOKIE, token, { path: basePath || "/", httpOnly: true, sameSite: "Strict", secure }) };
}

/** Why the POST of `c` fails the CSRF check, or undefined when it passes. */
export function csrfProblem(c: Context, submitted: unknown): string | undefined {
  if (c.req.header("sec-fetch-site") === "cross-site") return "the form was submitted from another site";
  const cookie = getCookie(c, CSRF_COOKIE);
  if (!cookie) return "the CSRF cookie is missing (cookies blocked, or the page is from before a restart of the browser session)";
  if (typeof submitted !== "string" || submitted.length === 0) return "the form carries no CSRF token";
  const a = Buffer.from(cookie);
  const b = Buffer.from(submitted);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return "the form's CSRF token does not match the cookie";
  return undefined;
}
