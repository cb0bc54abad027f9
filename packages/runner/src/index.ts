// @webbrain/runner public API: the BrowserPort over BiDi and what the CLI is made of.
export * from "./bidi-browser-port.js";
export * from "./browser-connection.js";
export * from "./dialog-handler.js";
export * from "./errors.js";
export * from "./mcp-server.js";
export * from "./page-script-channel.js";
export * from "./page-script-source.js";
export * from "./runner-session.js";
export * from "./tool-runner.js";
