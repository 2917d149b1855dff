// Preload for the missing-driver tests (node --import): makes the "mariadb" package unresolvable for every import, as
// in an app that never installed it, while the rest of node_modules stays as it is.
import { register } from "node:module";

const hook = `
export async function resolve(specifier, context, next) {
  if (specifier === "mariadb" || specifier.startsWith("mariadb/")) {
    const error = new Error("Cannot find package 'mariadb' imported from " + context.parentURL);
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
