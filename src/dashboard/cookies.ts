// Reading and writing the dashboard's two cookies (session and CSRF): HttpOnly, SameSite=Strict, scoped to its path.

/** The value of cookie `name` in a Cookie header, or undefined. */
export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index > 0 && part.slice(0, index).trim() === name) {
      try {
        return decodeURIComponent(part.slice(index + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** A Set-Cookie value: HttpOnly, SameSite=Strict, session-long unless maxAgeSeconds is given. */
export function serializeCookie(name: string, value: string, options: { path: string; secure: boolean; maxAgeSeconds?: number }): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${options.path}`, "HttpOnly", "SameSite=Strict"];
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}
