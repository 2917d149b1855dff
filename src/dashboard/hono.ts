// The dashboard's web stack, hono and @hono/node-server: optional peer dependencies, loaded through the one loader when
// the dashboard is first imported (the package root and the CLI's other commands never import it). Types stay imports.

import type * as NodeServer from "@hono/node-server";
import type * as HonoRoot from "hono";
import type * as HonoCookie from "hono/cookie";
import type * as HonoHtml from "hono/html";
import type * as HonoSecureHeaders from "hono/secure-headers";
import { optionalPackage } from "../optional-package.js";

const root = optionalPackage<typeof HonoRoot>("hono");
const cookie = optionalPackage<typeof HonoCookie>("hono/cookie");
const html = optionalPackage<typeof HonoHtml>("hono/html");
const headers = optionalPackage<typeof HonoSecureHeaders>("hono/secure-headers");
const server = optionalPackage<typeof NodeServer>("@hono/node-server");

export const Hono: typeof HonoRoot.Hono = root.Hono;
export const getCookie: typeof HonoCookie.getCookie = cookie.getCookie;
export const generateCookie: typeof HonoCookie.generateCookie = cookie.generateCookie;
export const honoHtml: typeof HonoHtml.html = html.html;
export const raw: typeof HonoHtml.raw = html.raw;
export const secureHeaders: typeof HonoSecureHeaders.secureHeaders = headers.secureHeaders;
export const getRequestListener: typeof NodeServer.getRequestListener = server.getRequestListener;
