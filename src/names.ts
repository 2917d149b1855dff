// Validation of the names that end up in SQL identifiers or AMQP names.
// A name is checked once here; everything downstream may then quote it without further thought.

const QUEUE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const TASK_NAME_MAX = 200;

/** Why `queue` is not a usable queue name, or undefined when it is. */
export function queueNameProblem(queue: unknown): string | undefined {
  if (typeof queue !== "string") return `must be a string, got ${typeof queue}`;
  if (!QUEUE_NAME.test(queue)) {
    return `${JSON.stringify(queue)} is not a queue name: use 1-100 letters, digits, "_", "." or "-", starting with a letter or digit`;
  }
  return undefined;
}

/** Why `name` is not a usable task name, or undefined when it is. */
export function taskNameProblem(name: string): string | undefined {
  if (name.length === 0) return "the name is empty";
  if (name.length > TASK_NAME_MAX) return `the name is ${name.length} characters long, over ${TASK_NAME_MAX}`;
  // eslint-disable-next-line no-control-regex -- control characters are what this pattern looks for: a task name may not hold them
  if (/[\u0000-\u001f\u007f]/.test(name)) return `the name ${JSON.stringify(name)} holds control characters`;
  return undefined;
}
