// How the page abbreviates ids. Task ids are UUIDv7, whose first characters are a timestamp shared by every task
// created in the same minute, so the page shows the last characters of an id, which differ.

export function shortId(id: string): string {
  return id.slice(-8);
}
