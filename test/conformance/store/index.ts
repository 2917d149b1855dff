// Every area of the store-level conformance suite (one file each under test/conformance/store/), in the order the
// suite runs them.

import { activityArea } from "./activity.js";
import type { StoreArea } from "./area.js";
import { claimArea } from "./claim.js";
import { controlsArea } from "./controls.js";
import { insertArea } from "./insert.js";
import { leaderArea } from "./leader.js";
import { operatorArea } from "./operator.js";
import { outcomesArea } from "./outcomes.js";
import { probeArea } from "./probe.js";
import { pruneArea } from "./prune.js";
import { recoveryArea } from "./recovery.js";
import { schedulesArea } from "./schedules.js";
import { sessionArea } from "./session.js";
import { viewsArea } from "./views.js";
import { wakeupsArea } from "./wakeups.js";
import { workflowsArea } from "./workflows.js";

export const AREAS: readonly StoreArea[] = [
  insertArea,
  claimArea,
  outcomesArea,
  recoveryArea,
  probeArea,
  wakeupsArea,
  pruneArea,
  schedulesArea,
  controlsArea,
  operatorArea,
  viewsArea,
  activityArea,
  workflowsArea,
  leaderArea,
  sessionArea,
];
