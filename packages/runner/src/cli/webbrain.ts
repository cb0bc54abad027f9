/**
 * The `webbrain` process: wires the real stdio, Ctrl-C and the exit code to `main`.
 * Ctrl-C aborts the running command (which closes Firefox); a second Ctrl-C exits at once.
 */
import { processIo } from "./cli-io.js";
import { main } from "./main.js";

const abort = new AbortController();
process.on("SIGINT", () => {
  if (abort.signal.aborted) process.exit(130);
  abort.abort(new Error("interrupted"));
});
process.on("SIGTERM", () => abort.abort(new Error("terminated")));

const code = await main(process.argv.slice(2), processIo(abort.signal));
// Let stdout drain (pipes are asynchronous) before the exit code is set.
process.exitCode = code;
process.stdout.write("", () => process.exit(code));
