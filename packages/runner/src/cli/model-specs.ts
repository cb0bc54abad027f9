/**
 * The flags that say what the model can take and how long it may think: shared by every command
 * that talks to a model (`run`, `bench`, `workflow run --handover`).
 */
import type { OptionSpecs } from "./argv-parser.js";

export const VISION_SETTINGS = ["on", "off", "auto"] as const;
export type VisionSetting = (typeof VISION_SETTINGS)[number];

/** The add-on's bounds on the same settings (its provider form refuses values outside them). */
export const MIN_REQUEST_TIMEOUT_S = 5;
export const MAX_REQUEST_TIMEOUT_S = 3_600;
export const MIN_CONTEXT_WINDOW = 1_000;
export const MAX_CONTEXT_WINDOW = 10_000_000;

export const modelOptions = {
  vision: {
    kind: "enum",
    values: VISION_SETTINGS,
    help: "Send the model images (the screenshot tool, a first-message screenshot, screenshots after actions): on, off, or auto (default: when the provider preset or the server's model info says the model takes images).",
  },
  "request-timeout": {
    kind: "integer",
    valueName: "SECONDS",
    min: MIN_REQUEST_TIMEOUT_S,
    max: MAX_REQUEST_TIMEOUT_S,
    help: "Give up on one model call after this long (default 180; 5 to 3600). Raise it for a slow local model.",
  },
  "context-window": {
    kind: "integer",
    valueName: "TOKENS",
    min: MIN_CONTEXT_WINDOW,
    max: MAX_CONTEXT_WINDOW,
    help: "Tokens the model can read (default 32000): older steps are summarized sooner in a smaller window.",
  },
} as const satisfies OptionSpecs;
