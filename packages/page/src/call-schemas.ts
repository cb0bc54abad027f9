/**
 * Every page action's params schema (@webbrain/protocol PAGE_CALL_SCHEMAS: the contract's
 * parameters, what it accepts besides, what every page call carries). The bundle replaces this
 * module with the same schemas as JSON (bundle.ts), so typebox, which builds them, never reaches
 * a web page; run from source (tsc, Node) it reads them from the protocol directly.
 */
import { PAGE_CALL_SCHEMAS, type PageLayerActionName } from "@webbrain/protocol";
import type { CallSchema } from "./call-params.js";

export const CALL_SCHEMAS: Readonly<Record<PageLayerActionName, CallSchema>> = PAGE_CALL_SCHEMAS;
