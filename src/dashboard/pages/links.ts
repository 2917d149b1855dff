// Links into the task list with filters, built in one place so every page links the same way.

interface ListLink {
  status?: string;
  queue?: string;
  name?: string;
  key?: string;
  from?: string;
  to?: string;
  before?: string;
  after?: string;
}

/** `${base}/tasks?…` with the given filters (empty values left out). */
export function tasksHref(base: string, filters: ListLink): string {
  const params = new URLSearchParams();
  for (const key of Object.keys(filters) as (keyof ListLink)[]) {
    const value = filters[key];
    if (value) params.set(key, value);
  }
  const query = params.toString();
  return `${base}/tasks${query ? `?${query}` : ""}`;
}
