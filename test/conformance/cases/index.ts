// Every end-to-end conformance case: what needs workers, a cleaner, brokers or processes. What one store operation
// guarantees on its own is checked method by method by the store-level suite (test/conformance/store/).

import type { ConformanceCase } from "./case.js";
import { claimExclusivity } from "./claim-exclusivity.js";
import { crashRecovery } from "./crash-recovery.js";
import { dedupeRace } from "./dedupe-race.js";
import { delayedOnTime, delayedTasks } from "./delayed.js";
import { prune } from "./prune.js";
import { retriesThenDead } from "./retries.js";
import { transactionalOnce } from "./transactional.js";

export const CASES: readonly ConformanceCase[] = [claimExclusivity, transactionalOnce, retriesThenDead, crashRecovery, delayedTasks, delayedOnTime, dedupeRace, prune];
