/**
 * `webbrain login <url>` and `webbrain state save <file>`: the logged-in session commands.
 *
 * Invariants:
 * - login is headed and needs someone at the terminal; it refuses to start without one.
 * - state save writes the file whole or not at all (storage-state.ts), readable by its owner only.
 */
import { resolve } from "node:path";
import { type RunnerSession, withRunnerSession } from "../browser/runner-session.js";
import {
  readCookies,
  readLocalStorage,
  type StorageState,
  writeStorageStateFile,
} from "../browser/storage-state.js";
import { EXIT_DONE, type ExitCode, UsageError } from "../errors.js";
import { loadPageScript } from "../port/page-script-source.js";
import { waitForPerson } from "../run/wait-for-person.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import type { loginCommand, stateCommand } from "./session-specs.js";
import { browserOptionsFrom } from "./shared-options.js";

async function saveState(session: RunnerSession, file: string): Promise<StorageState> {
  const client = session.port.client;
  const cookies = await readCookies(client);
  const origin = await readLocalStorage(client, session.tabId);
  const state: StorageState = { cookies, origins: origin && origin.localStorage.length > 0 ? [origin] : [] };
  await writeStorageStateFile(file, state);
  return state;
}

function describeSaved(state: StorageState, file: string): string {
  const items = state.origins.reduce((sum, origin) => sum + origin.localStorage.length, 0);
  return `webbrain: saved ${state.cookies.length} cookies and ${items} local storage items to ${file}\n`;
}

export async function loginCommandHandler(
  positionals: string[],
  options: ParsedOptions<typeof loginCommand.options>,
  io: CliIo,
): Promise<ExitCode> {
  if (!options.profile && !options["save-state"]) {
    throw new UsageError("login keeps nothing without --profile DIR or --save-state FILE; give one or both.");
  }
  const url = positionals[0]!;
  return withRunnerSession<ExitCode>(
    {
      ...browserOptionsFrom({ ...options, headed: true }),
      pageScript: loadPageScript,
      url,
      signal: io.signal,
    },
    async (session) => {
      const { outcome } = await waitForPerson(
        io.stdin,
        io.stderr,
        `webbrain: Firefox shows ${url}. Log in there (solve any captcha) and leave the page logged in.`,
        io.signal,
      );
      if (outcome === "aborted") return EXIT_DONE;
      const file = options["save-state"];
      if (file) io.stderr.write(describeSaved(await saveState(session, resolve(file)), file));
      if (options.profile) io.stderr.write(`webbrain: the profile ${options.profile} keeps this login.\n`);
      return EXIT_DONE;
    },
  );
}

export async function stateCommandHandler(
  positionals: string[],
  options: ParsedOptions<typeof stateCommand.options>,
  io: CliIo,
): Promise<ExitCode> {
  const [action, file] = positionals as [string, string];
  if (action !== "save") {
    throw new UsageError(
      `Unknown state action "${action}": the only one is save (webbrain state save FILE). To load a state, pass --storage-state FILE to another command.`,
    );
  }
  return withRunnerSession<ExitCode>(
    {
      ...browserOptionsFrom(options),
      pageScript: loadPageScript,
      signal: io.signal,
      ...(options.url ? { url: options.url } : {}),
    },
    async (session) => {
      io.stderr.write(describeSaved(await saveState(session, resolve(file)), file));
      return EXIT_DONE;
    },
  );
}
