// Vitest global setup: finds the services once, migrates a template database, and hands both to the test files.

import type { TestProject } from "vitest/node";
import { applySchema } from "./support/schema.js";
import { databaseUrlFor, onServer } from "./support/database.js";
import { resolveServices } from "./support/services.js";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    amqpUrl: string;
    templateDatabase: string;
  }
}

export default async function setup(project: TestProject) {
  const services = await resolveServices();
  const template = `ptq_template_${process.pid}`;
  await onServer(services.databaseUrl, [`DROP DATABASE IF EXISTS "${template}"`, `CREATE DATABASE "${template}"`]);
  await applySchema(databaseUrlFor(services.databaseUrl, template));
  project.provide("databaseUrl", services.databaseUrl);
  project.provide("amqpUrl", services.amqpUrl);
  project.provide("templateDatabase", template);
  return async () => {
    await onServer(services.databaseUrl, [`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`]);
    await services.stop();
  };
}
