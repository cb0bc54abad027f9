// @webbrain/runner public API: the BrowserPort over BiDi and what the CLI is made of.

export * from "./browser/browser-connection.js";
export * from "./browser/dialog-handler.js";
export * from "./browser/runner-session.js";
export * from "./errors.js";
export * from "./mcp/mcp-server.js";
export * from "./port/bidi-browser-port.js";
export * from "./port/page-script-channel.js";
export * from "./port/page-script-source.js";
export * from "./tools/tool-runner.js";
