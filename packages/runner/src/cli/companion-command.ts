/**
 * `webbrain companion install | uninstall | serve` (companion/ holds the host itself).
 */

import {
  firefoxCommandLine,
  installLauncher,
  launcherDir,
  uninstallLauncher,
} from "../companion/firefox-launcher.js";
import {
  defaultManifestDir,
  type InstallTarget,
  installHost,
  uninstallHost,
} from "../companion/host-manifest.js";
import { EXIT_DONE, type ExitCode, UsageError } from "../errors.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import type { companionCommand } from "./companion-specs.js";

type Options = ParsedOptions<typeof companionCommand.options>;

function targetOf(options: Options, io: CliIo): InstallTarget {
  const platform = process.platform;
  return { platform, dir: options.dir ?? defaultManifestDir(platform, io.env.HOME || undefined) };
}

export async function companionCommandHandler(
  positionals: string[],
  options: Options,
  io: CliIo,
): Promise<ExitCode> {
  const [action] = positionals;
  if (action === "install") {
    const installed = await installHost(targetOf(options, io));
    io.stdout.write(`wrote ${installed.manifest}\nwrote ${installed.wrapper}\n`);
    if (installed.registryCommand) io.stdout.write(`now run: ${installed.registryCommand}\n`);
    if (options.launcher) {
      if (process.platform === "linux")
        io.stdout.write(`wrote ${await installLauncher(launcherDir(io.env, io.env.HOME || undefined))}\n`);
      io.stdout.write(`alias firefox-webbrain='${firefoxCommandLine()}'\n`);
    }
    io.stderr.write(
      "webbrain: the companion is installed; turn it on in the add-on's Settings, in a Firefox started with --remote-debugging-port.\n",
    );
    return EXIT_DONE;
  }
  if (action === "uninstall") {
    const removed = await uninstallHost(targetOf(options, io));
    const launcher = await uninstallLauncher(launcherDir(io.env, io.env.HOME || undefined));
    if (launcher) removed.push(launcher);
    io.stdout.write(
      removed.length > 0 ? removed.map((p) => `removed ${p}\n`).join("") : "nothing to remove\n",
    );
    return EXIT_DONE;
  }
  if (action === "serve") {
    const { serveStdio } = await import("../companion/companion-stdio.js");
    await serveStdio(io);
    return EXIT_DONE;
  }
  throw new UsageError(`Unknown companion action "${action}"; use install, uninstall or serve.`);
}
