/**
 * webbrain-bidi: a small command line over @webbrain/bidi.
 *
 * `probe` launches Firefox (headless unless --headed), prints the BiDi session's browser name and
 * version, and closes it. Exit codes: 0 ok, 1 the probe failed (message on stderr), 2 bad usage.
 * `runCli` takes its streams and environment as arguments so tests drive it in-process.
 */
import { FirefoxLaunchError, FirefoxNotFoundError } from "./errors.js";
import { launchFirefox } from "./launcher.js";

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

export const USAGE = `Usage: webbrain-bidi <command> [options]

Commands:
  probe              Launch Firefox, print the BiDi session's browser name and version, close it.

Options (probe):
  --headed           Show the browser window (default: headless).
  --executable PATH  Firefox binary (default: $FIREFOX_BIN, then firefox / firefox-esr on PATH).
  --timeout MS       Startup timeout in milliseconds (default 30000).
  --json             Print {"browserName","browserVersion","wsEndpoint"} as JSON.
  -h, --help         Show this help.
`;

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

interface ProbeArgs {
  headed: boolean;
  executablePath: string | undefined;
  startupTimeoutMs: number | undefined;
  json: boolean;
}

class UsageError extends Error {}

function parseProbeArgs(args: string[]): ProbeArgs {
  const out: ProbeArgs = {
    headed: false,
    executablePath: undefined,
    startupTimeoutMs: undefined,
    json: false,
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = () => {
      const v = args[++i];
      if (v === undefined || v.startsWith("--")) throw new UsageError(`${arg} needs a value`);
      return v;
    };
    switch (arg) {
      case "--headed":
        out.headed = true;
        break;
      case "--json":
        out.json = true;
        break;
      case "--executable":
        out.executablePath = value();
        break;
      case "--timeout": {
        const ms = Number(value());
        if (!Number.isInteger(ms) || ms <= 0)
          throw new UsageError("--timeout needs a positive whole number of ms");
        out.startupTimeoutMs = ms;
        break;
      }
      default:
        throw new UsageError(`unknown option ${JSON.stringify(arg)}`);
    }
  }
  return out;
}

async function probe(args: ProbeArgs, io: CliIo): Promise<number> {
  const browser = await launchFirefox({
    headless: !args.headed,
    executablePath: args.executablePath,
    startupTimeoutMs: args.startupTimeoutMs,
    env: io.env,
  });
  try {
    const { browserName, browserVersion, wsEndpoint } = browser;
    io.stdout(
      args.json
        ? `${JSON.stringify({ browserName, browserVersion, wsEndpoint })}\n`
        : `${browserName} ${browserVersion}\n`,
    );
  } finally {
    await browser.close();
  }
  return EXIT_OK;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "-h" || command === "--help" || command === "help") {
    (command === undefined ? io.stderr : io.stdout)(USAGE);
    return command === undefined ? EXIT_USAGE : EXIT_OK;
  }
  if (command !== "probe") {
    io.stderr(`webbrain-bidi: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  if (rest.includes("-h") || rest.includes("--help")) {
    io.stdout(USAGE);
    return EXIT_OK;
  }
  let args: ProbeArgs;
  try {
    args = parseProbeArgs(rest);
  } catch (err) {
    io.stderr(`webbrain-bidi: ${(err as Error).message}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  try {
    return await probe(args, io);
  } catch (err) {
    const known = err instanceof FirefoxNotFoundError || err instanceof FirefoxLaunchError;
    const message = err instanceof Error ? err.message : String(err);
    io.stderr(`webbrain-bidi probe failed: ${message}\n`);
    if (!known && err instanceof Error && err.stack) io.stderr(`${err.stack}\n`);
    return EXIT_FAILED;
  }
}
