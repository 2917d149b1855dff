// The one way pages build HTML: hono's html tagged template (hono/html), which escapes every interpolated string
// (payloads, errors and names are user data), inserts fragments it made and arrays of them, and drops null and booleans.

import { honoHtml, raw } from "../hono.js";

/** A fragment of HTML that is safe to insert as is: a string hono marked as escaped. */
export type Html = ReturnType<typeof raw>;

/** `html\`<p>${text}</p>\``: strings are escaped; numbers, Html and arrays of Html are inserted; null and booleans vanish. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  // Hono returns a promise only when a value is one; pages interpolate none.
  return honoHtml(strings, ...values) as Html;
}

/** JSON for a `<script type="application/json">` block: `<`, `>` and `&` are escaped so the text cannot close the tag. */
export function jsonScript(value: unknown): Html {
  return raw(JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026"));
}
