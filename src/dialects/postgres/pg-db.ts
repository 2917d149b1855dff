// The store's own pool under the name it had before the dialect folders took one file set (own-db.ts), for the tests
// that still import it from here; remove it once none does.
export { ownDb as pgDb } from "./own-db.js";
