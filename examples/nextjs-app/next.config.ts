// Next.js configuration of the example: this folder is the app's root (the repository above has its own lockfile),
// and the queue with its Node-only dependencies is loaded by Node at run time instead of being bundled.
import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";

const appRoot = fileURLToPath(new URL(".", import.meta.url));

const config: NextConfig = {
  turbopack: { root: appRoot },
  outputFileTracingRoot: appRoot,
  // Server-only packages: prisma-task-queue (with its RabbitMQ client and config loader), pg and its Prisma adapter.
  serverExternalPackages: ["prisma-task-queue", "amqplib", "pg", "@prisma/adapter-pg"],
  // `next dev` serves its scripts only to localhost unless told otherwise; the worker and the tests use 127.0.0.1.
  allowedDevOrigins: ["127.0.0.1"],
};

export default config;
