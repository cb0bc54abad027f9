/**
 * Entry of the runner's second in-page bundle, run in the BiDi sandbox before the page layer:
 * the roots shim, the closed-shadow-root probe, the page call door and the element tools. Each
 * global is installed once per realm (a second injection keeps the first).
 */

import { locate, resourceUrl } from "./element-tools.js";
import { createPageCall } from "./page-call.js";
import { PAGE_CALL_GLOBAL, REALM_TOOLS_GLOBAL } from "./realm-protocol.js";
import { installRootsShim } from "./roots-shim.js";
import { createShadowProbe } from "./shadow-probe.js";

const scope = globalThis as unknown as Record<string, unknown>;
installRootsShim();
if (!scope[PAGE_CALL_GLOBAL]) scope[PAGE_CALL_GLOBAL] = createPageCall(createShadowProbe());
if (!scope[REALM_TOOLS_GLOBAL]) scope[REALM_TOOLS_GLOBAL] = { resourceUrl, locate };
