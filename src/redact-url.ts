// Connection URLs as they may appear in logs and error messages: the password replaced by ***.

/** `url` with its password hidden; "(an unparsable URL)" when it is not a URL. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(an unparsable URL)";
  }
}
