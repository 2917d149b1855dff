// The store-level conformance suite on each dialect (test/conformance/store/suite.ts).

import { STORE_DIALECTS } from "./store/dialects.js";
import { describeStoreSuite } from "./store/suite.js";

describeStoreSuite(STORE_DIALECTS);
