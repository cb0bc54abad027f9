// @webbrain/bidi public API. Layers, bottom up: transport -> client -> session/connect ->
// process/launcher; command helpers sit beside the client and only use `send`.
export * from "./browsing-context-commands.js";
export * from "./client.js";
export * from "./errors.js";
export * from "./firefox-executable.js";
export * from "./firefox-process.js";
export * from "./firefox-profile.js";
export * from "./input-commands.js";
export * from "./launcher.js";
export { pidAlive, processGroupRuns } from "./process-state.js";
export * from "./remote-value.js";
export * from "./script-commands.js";
export * from "./session.js";
export * from "./transport.js";
export * from "./webdriver-classic.js";
