// Loads amqplib, the RabbitMQ client: an optional peer dependency, so an app woken by NOTIFY, in-process delivery or
// polling installs nothing for it. Loaded when a RabbitMQ transport is made, never at start-up.

import type amqp from "amqplib";
import { optionalPackage } from "../../optional-package.js";

/** The client module, as the transport uses it. */
type AmqpClient = typeof amqp;

/** The amqplib module; throws MissingPackageError when the package is not installed. */
export function amqpClient(): AmqpClient {
  return optionalPackage<AmqpClient>("amqplib");
}
