// @webbrain/testkit: test-only helpers. One export line per module.
export * from "./byte-flood.js";
export * from "./fake-grid.js";
export * from "./filmstrip-view.js";
export * from "./firefox-harness.js";
export * from "./fixture-server.js";
export * from "./llm/index.js";
export * from "./node-script.js";
export * from "./pdf-writer.js";
export * from "./person-input.js";
export { CONSOLE_METHODS, type ConsoleMethod } from "./process-leaks.js";
export * from "./session-relay.js";
export * from "./skill-markdown.js";
export * from "./tool-conformance.js";
export * from "./tool-conformance-effects.js";
export * from "./tree-lines.js";
export * from "./tree-refs.js";
export * from "./wait-for.js";
export * from "./zim-writer.js";
