// Preload for the missing-package tests (node --import): makes the packages named in HIDE_PACKAGES (comma-separated)
// unresolvable, to import and to require alike, as in an app that never installed them; the rest of node_modules stays.
import Module, { register } from "node:module";

const hidden = (process.env.HIDE_PACKAGES ?? "").split(",").filter(Boolean);
const isHidden = (specifier) => hidden.some((name) => specifier === name || specifier.startsWith(`${name}/`));

const hook = `
const hidden = ${JSON.stringify(hidden)};
export async function resolve(specifier, context, next) {
  const name = hidden.find((name) => specifier === name || specifier.startsWith(name + "/"));
  if (name) {
    const error = new Error("Cannot find package '" + name + "' imported from " + context.parentURL);
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);

// require() does not go through the hook above: Node's CommonJS resolver is wrapped the same way.
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  if (isHidden(request)) {
    const error = new Error(`Cannot find module '${request}'\nRequire stack:\n- ${parent?.filename ?? "(unknown)"}`);
    error.code = "MODULE_NOT_FOUND";
    throw error;
  }
  return resolveFilename.call(this, request, parent, ...rest);
};
