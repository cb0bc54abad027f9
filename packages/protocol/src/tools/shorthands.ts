/**
 * The words the tool families (tree.ts, input.ts, ...) are written in: argument schemas, where a
 * tool runs, who offers it. Named once so a family file reads as a list of tools.
 */
import { Type } from "typebox";
import type { BrowserCapability } from "../browser-capabilities.js";
import type { ToolOffer } from "./contract.js";

// No description: the argument's name says it, and this schema is sent ~20 times per call.
export const ref = Type.Union([Type.Integer(), Type.String()]);
export const optRef = Type.Optional(ref);
export const str = (description?: string) => Type.String(description ? { description } : {});
export const optStr = (description?: string) => Type.Optional(str(description));
export const optNum = (description?: string) =>
  Type.Optional(Type.Number(description ? { description } : {}));
export const optBool = (description?: string) =>
  Type.Optional(Type.Boolean(description ? { description } : {}));
export const none = Type.Object({});
/** Keys as the page layer takes them from a port: one string ("Control+a Enter") or a list. */
export const keyList = Type.Union([Type.String(), Type.Array(Type.String())]);
export const resubmit = optBool("true only to deliberately repeat a submit that was blocked");

// Where tools run, named once.
export const PAGE = { in: "page", trustedInput: false, searchesShadowRoots: false } as const;
export const PAGE_SEARCH = { in: "page", trustedInput: false, searchesShadowRoots: true } as const;
export const PAGE_INPUT = { in: "page", trustedInput: true, searchesShadowRoots: false } as const;
export const PAGE_INPUT_SEARCH = { in: "page", trustedInput: true, searchesShadowRoots: true } as const;
export const PORT_ACTION = { in: "port_action" } as const;
export const PORT = { in: "port" } as const;
export const AGENT = { in: "agent", requires: [] } as const;
export const AGENT_SCHEDULER = { in: "agent", requires: ["scheduler"] } as const;

// Who offers tools, named once (spec 000's tool lists by mode and tier).
/** Every mode and tier: the AX tools and reading. */
export const EVERYWHERE: ToolOffer = { ask: "compact", act: "compact", dev: "compact" };
/** Act and Dev on every tier, never Ask. */
export const ACTING: ToolOffer = { act: "compact", dev: "compact" };
/** Act and Dev from Mid. */
export const ACTING_MID: ToolOffer = { act: "mid", dev: "mid" };
/** Every mode from Mid (read-only tools Compact models do without). */
export const READING_MID: ToolOffer = { ask: "mid", act: "mid", dev: "mid" };
/** Full Act only (spec 000: synthetic hover and drag). */
export const FULL_ACT: ToolOffer = { act: "full", dev: "full" };
/** Shadow and frame inspection: Full in Ask and Act, and Dev from Mid. */
export const INSPECTING: ToolOffer = { ask: "full", act: "full", dev: "mid" };
export const DEV_ONLY: ToolOffer = { dev: "mid" };
export const PAGE_LAYER = ["page_layer"] as const satisfies readonly BrowserCapability[];
export const SCHEDULE_AFTER_SECONDS = "Seconds from now. 0 starts a task now.";
export const SCHEDULE_RUN_AT = "ISO date-time, e.g. 2026-12-02T08:00:00Z.";
