// Tells a broker error that waiting will not heal (refused credentials, missing virtual host, unknown host, a URL the
// client cannot use) from one that may pass (connection refused, reset, timeout), and words the fix for the former.

import { redactUrl } from "../../redact-url.js";

/** What a failed connection attempt means for whoever configured the broker URL. */
interface BrokerFailure {
  /**
   * True when retrying is unlikely to help until someone changes the URL or the broker's users/vhosts: logged once as
   * an error with `fix` (refusals are retried slowly). False for a broker that is down or restarting.
   */
  lasting: boolean;
  /** "refused": the broker answered and said no (or the URL cannot be used); "unreachable": no broker answered. */
  state: "refused" | "unreachable";
  /** The error as the client library gave it. */
  error: string;
  /** What to check or change; present for lasting failures. */
  fix?: string;
}

/** Where the URL is set, named in every fix. */
const URL_OPTION = "amqpUrl (the AMQP_URL environment variable, or --amqp-url for task-runner)";

/** Classifies a failed connect or a dropped connection to the broker at `url`. */
export function classifyBrokerError(error: unknown, url: string): BrokerFailure {
  const message = (error as Error | undefined)?.message ?? String(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  const shown = redactUrl(url);
  if (/ACCESS[-_]REFUSED/.test(message)) {
    return lasting(
      "refused",
      message,
      `RabbitMQ at ${shown} refused the user name or password (ACCESS_REFUSED): check the credentials in ${URL_OPTION}, or create that user on the broker (rabbitmqctl add_user)`,
    );
  }
  if (/NOT[-_]ALLOWED|Expected ConnectionOpenOk; got <ConnectionClose/.test(message)) {
    return lasting(
      "refused",
      message,
      `RabbitMQ at ${shown} refused to open the virtual host "${vhostOf(url)}" (NOT_ALLOWED): check the path of ${URL_OPTION} names an existing virtual host (rabbitmqctl list_vhosts) that the user has permissions on (rabbitmqctl set_permissions)`,
    );
  }
  if (code === "ENOTFOUND") {
    return lasting(
      "unreachable",
      message,
      `the host name of ${shown} is not known (ENOTFOUND): check the host in ${URL_OPTION} (in a container network: is the broker's service up?)`,
    );
  }
  if (typeof code === "string" && /^(CERT_|ERR_TLS_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)/.test(code)) {
    return lasting("refused", message, `the TLS certificate of ${shown} was not accepted (${code}): check the host name and the CA in ${URL_OPTION}`);
  }
  if (error instanceof TypeError || code === "ERR_INVALID_URL" || /Invalid URL|Expected amqp: or amqps:/.test(message)) {
    return lasting("refused", message, `${shown} is not a usable AMQP URL: fix ${URL_OPTION}, e.g. amqp://user:password@host:5672/vhost`);
  }
  return { lasting: false, state: "unreachable", error: message };
}

function lasting(state: BrokerFailure["state"], error: string, fix: string): BrokerFailure {
  return { lasting: true, state, error, fix };
}

/** The virtual host the URL asks for: its decoded path without the leading slash, "/" when empty. */
function vhostOf(url: string): string {
  try {
    const path = new URL(url).pathname.replace(/^\//, "");
    return path === "" ? "/" : decodeURIComponent(path);
  } catch {
    return "?";
  }
}
