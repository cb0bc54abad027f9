/**
 * `--zim FILE` (`run`, `run --tasks`, `mcp`): offline Wikipedia, as the add-on's installed
 * Kiwix archives give it. A skill's request to a Wikipedia summary endpoint that fails (no
 * network, DNS, 5xx) is answered from the archive by `@webbrain/agent/offline-wikipedia`, the
 * add-on's own reader and fallback: the live article's URL, the archive's title, date and
 * license. It stays the skill's result, so it is wrapped as untrusted and capped like the live
 * one.
 *
 * Invariants:
 * - The file is checked when the command starts: missing, unreadable or not a ZIM archive is a
 *   UsageError (exit 2) before the model is asked or Firefox starts; so is `--zim` without a
 *   skill that looks Wikipedia up (it would do nothing).
 * - The archive is read by byte range through one file handle (file-byte-source.ts), never whole.
 * - Without `--zim`, a Wikipedia lookup that cannot reach the site says that no archive was given.
 */
import { basename } from "node:path";
import {
  failureText,
  parseSkills,
  platformSkillHttp,
  type SkillDefinition,
  type SkillHttp,
} from "@webbrain/agent";
import {
  isWikipediaSummaryUrl,
  OfflineWikipediaHttp,
  readArchiveMetadata,
  ZimFormatError,
  ZimReader,
} from "@webbrain/agent/offline-wikipedia";
import { UsageError } from "../errors.js";
import { type FileByteSource, openFileByteSource } from "./file-byte-source.js";

/** How skill tools reach the network in one command, and what to close when it ends. */
export interface SkillNetwork {
  readonly http: SkillHttp;
  /** Says where Wikipedia lookups fall back to, for the start line; undefined without --zim. */
  readonly description?: string;
  close(): Promise<void>;
}

const NO_ARCHIVE_HINT =
  "no offline archive was given (`webbrain ... --zim FILE` answers Wikipedia lookups from a Kiwix archive while the site is unreachable)";

/** The runner's skill network without an archive: a failed Wikipedia lookup says what would help. */
const liveOnly: SkillHttp = {
  async send(request, signal) {
    try {
      return await platformSkillHttp.send(request, signal);
    } catch (error) {
      if (!isWikipediaSummaryUrl(request.url)) throw error;
      throw new Error(`${failureText(error)}; ${NO_ARCHIVE_HINT}`, { cause: error });
    }
  },
};

/** A skill tool's endpoint as a URL (placeholders filled), to see where it goes. */
function endpointUrl(endpoint: string): string {
  return endpoint.replace(/\{[^}]*\}/g, "x");
}

function looksWikipediaUp(skills: readonly SkillDefinition[]): boolean {
  return parseSkills(skills).some((skill) =>
    skill.tools.some((tool) => isWikipediaSummaryUrl(endpointUrl(tool.endpoint))),
  );
}

async function openArchive(path: string): Promise<{ source: FileByteSource; zim: ZimReader }> {
  let source: FileByteSource;
  try {
    source = await openFileByteSource(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`--zim ${path}: cannot read the file (${code}); give a .zim archive from Kiwix.`);
  }
  try {
    return { source, zim: await ZimReader.open(source) };
  } catch (error) {
    await source.close();
    if (error instanceof ZimFormatError) throw new UsageError(`--zim ${path}: ${error.message}`);
    throw new UsageError(
      `--zim ${path}: cannot read it as a ZIM archive (${(error as Error).message}); give a .zim archive from Kiwix.`,
    );
  }
}

/**
 * The skill network for a command: with `zimPath`, Wikipedia lookups fall back to that archive.
 * `skills` are every skill the command loaded (all tasks' for `--tasks`).
 */
export async function skillNetworkFor(
  zimPath: string | undefined,
  skills: readonly SkillDefinition[],
): Promise<SkillNetwork> {
  if (zimPath === undefined) return { http: liveOnly, close: async () => {} };
  if (!looksWikipediaUp(skills)) {
    throw new UsageError(
      `--zim ${zimPath}: no --skill looks Wikipedia up, so the archive would never be read; add the packaged Wikipedia skill (--skill wikipedia) or drop --zim.`,
    );
  }
  const { source, zim } = await openArchive(zimPath);
  try {
    const metadata = await readArchiveMetadata(zim, basename(zimPath));
    return {
      http: new OfflineWikipediaHttp(platformSkillHttp, {
        list: async () => [metadata],
        open: async () => zim,
      }),
      description: `Wikipedia falls back to ${metadata.title}${metadata.date ? ` (${metadata.date})` : ""}`,
      close: () => source.close(),
    };
  } catch (error) {
    await source.close();
    throw new UsageError(
      `--zim ${zimPath}: cannot read the archive's metadata (${(error as Error).message}).`,
    );
  }
}
