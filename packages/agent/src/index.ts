/** @webbrain/agent: the browser-free agent core (see README.md). */

export * from "./abort-race.js";
export * from "./agent.js";
export * from "./agent-events.js";
export * from "./blocked-done.js";
export * from "./browser-port.js";
export * from "./context-manager.js";
export * from "./conversation.js";
export * from "./errors.js";
export * from "./loop-detector.js";
export * from "./model-inputs.js";
export * from "./permission-gate.js";
export * from "./planner.js";
export * from "./prompts.js";
export * from "./provider-client.js";
export * from "./provider-config.js";
export * from "./site-adapters.js";
export * from "./skills.js";
export * from "./store.js";
export * from "./submit-guard.js";
export * from "./tool-catalog.js";
export * from "./tool-executor.js";
export * from "./tool-result.js";
export * from "./tool-selection.js";
export * from "./untrusted.js";
