// The store-level conformance suite on PostgreSQL through PgBouncer 1.18 in transaction mode (`pgbouncer=true`): every
// store operation works through it, with the leader lock and LISTEN on a direct URL (directUrl).

import { pgbouncerStoreDialect } from "./store/pgbouncer-dialect.js";
import { describeStoreSuite } from "./store/suite.js";

describeStoreSuite([pgbouncerStoreDialect]);
