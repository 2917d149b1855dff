// Payload validation against a task's zod schema, shared by enqueue and the worker: zod's synchronous safeParse
// returns a result, except for a schema with async refinements or transforms, which makes it throw instead.

import type { TaskDefinition } from "./define-tasks.js";

/** What zod's safeParse and safeParseAsync return. */
export type ParsedPayload = { success: true; data: unknown } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };

interface PayloadSchema {
  safeParse(value: unknown): ParsedPayload;
  safeParseAsync(value: unknown): Promise<ParsedPayload>;
}

/** Schemas seen to need async parsing: they skip the synchronous try. */
const asyncSchemas = new WeakSet<object>();

/** zod 4's $ZodAsyncError, or zod 3's "Asynchronous refinement encountered during synchronous parse". */
export function isAsyncSchemaError(error: unknown): boolean {
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  return name === "$ZodAsyncError" || (typeof message === "string" && /async/i.test(message));
}

/** safeParse; throws what zod throws (an async schema: see isAsyncSchemaError). */
export function parsePayloadNow(definition: TaskDefinition, payload: unknown): ParsedPayload {
  return (definition.payload as unknown as PayloadSchema).safeParse(payload);
}

/**
 * Validates synchronously when the schema allows it (no promise per task), else asynchronously. A refinement that
 * throws makes safeParse throw too; safeParseAsync then reports it the way it always did.
 */
export function parsePayload(definition: TaskDefinition, payload: unknown): ParsedPayload | Promise<ParsedPayload> {
  const schema = definition.payload as unknown as PayloadSchema;
  if (!asyncSchemas.has(schema)) {
    try {
      return schema.safeParse(payload);
    } catch (error) {
      if (isAsyncSchemaError(error)) asyncSchemas.add(schema);
    }
  }
  return schema.safeParseAsync(payload);
}
