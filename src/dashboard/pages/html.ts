// The one way pages build HTML: a tagged template that escapes every interpolated value (payloads, errors and names are
// user data) unless it is already Html. Escaping is Hono's; nesting, arrays and empty values are handled here.

import { escapeToBuffer } from "hono/utils/html";

/** A fragment of HTML that is safe to insert as is. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Escapes text for HTML content and attribute values (& < > " '). */
export function escapeHtml(text: string): string {
  const buffer: [string] = [""];
  escapeToBuffer(text, buffer);
  return buffer[0];
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

/** `html\`<p>${text}</p>\``: strings and numbers are escaped; Html and arrays of Html are inserted; null/false vanish. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? "");
  return new Html(out);
}

/** JSON for a `<script type="application/json">` block: `<`, `>` and `&` are escaped so the text cannot close the tag. */
export function jsonScript(value: unknown): Html {
  return new Html(JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026"));
}
