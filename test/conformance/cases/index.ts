// Every conformance case, in the order the suite runs them.

import type { ConformanceCase } from "./case.js";
import { claimExclusivity } from "./claim-exclusivity.js";
import { crashRecovery } from "./crash-recovery.js";
import { dedupeRace } from "./dedupe-race.js";
import { delayedTasks } from "./delayed.js";
import { leaderLock } from "./leader-lock.js";
import { leaseGuard } from "./lease-guard.js";
import { operatorActions } from "./operator-actions.js";
import { outcomeHistory } from "./outcome-history.js";
import { prune } from "./prune.js";
import { retriesThenDead } from "./retries.js";
import { transactionalOnce } from "./transactional.js";

export const CASES: readonly ConformanceCase[] = [
  leaseGuard,
  claimExclusivity,
  transactionalOnce,
  retriesThenDead,
  outcomeHistory,
  crashRecovery,
  delayedTasks,
  dedupeRace,
  prune,
  operatorActions,
  leaderLock,
];
