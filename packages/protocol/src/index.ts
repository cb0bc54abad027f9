/**
 * @webbrain/protocol: the contract between realms (see README.md). Isomorphic: no DOM, no
 * `node:`, no `browser.*`; imports typebox and nothing of ours.
 */

export * from "./agent-facilities.js";
export * from "./attach-messages.js";
export * from "./browser-capabilities.js";
export * from "./companion-messages.js";
export * from "./key-table.js";
export * from "./mode-schema.js";
export * from "./modes.js";
export * from "./page-answer.js";
export * from "./permission-capabilities.js";
export * from "./recording.js";
export * from "./tool-facets.js";
export * from "./tools/index.js";
export * from "./tree-filter.js";
export * from "./tree-filter-schema.js";
export * from "./tree-nodes.js";
export * from "./tree-nodes-schema.js";
export * from "./wait-limits.js";
