/**
 * `webbrain snapshot <url>`: the accessibility tree as the model sees it. The whole tree unless
 * --budget is given; a cut tree ends with the page layer's truncation marker line.
 */

import { withRunnerSession } from "../browser/runner-session.js";
import { EXIT_DONE, type ExitCode, TaskFailedError } from "../errors.js";
import { loadPageScript } from "../port/page-script-source.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import type { snapshotCommand } from "./command-specs.js";
import { browserOptionsFrom } from "./shared-options.js";

type Options = ParsedOptions<typeof snapshotCommand.options>;

export async function snapshotCommandHandler(
  positionals: string[],
  options: Options,
  io: CliIo,
): Promise<ExitCode> {
  const url = positionals[0]!;
  const result = await withRunnerSession(
    { ...browserOptionsFrom(options), pageScript: loadPageScript, url, signal: io.signal },
    ({ port, tabId }) =>
      port.pageAction(tabId, "get_accessibility_tree", {
        ...(options.filter ? { filter: options.filter } : {}),
        ...(options.budget ? { max_chars: options.budget } : {}),
      }),
  );
  if (!result.success) throw new TaskFailedError(`Could not read the page's tree: ${result.error}`);
  io.stdout.write(
    options.json ? `${JSON.stringify(result)}\n` : `${String(result.tree).replace(/\n$/, "")}\n`,
  );
  return EXIT_DONE;
}
