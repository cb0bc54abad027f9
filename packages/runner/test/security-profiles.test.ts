/**
 * `webbrain ... --profile DIR` on an everyday Firefox profile (issue 20, point 7): the real bin
 * refuses it before Firefox starts, with exit 2 (the user's input to fix) and one line that says
 * how to use a fresh profile or copy logins in, and the folder is left byte-for-byte as it was.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const TEST_TIMEOUT_MS = 120_000;

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "webbrain-security-profiles-"));
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await readdir(dir)) {
    const info = await stat(join(dir, name));
    const hash = createHash("sha256")
      .update(await readFile(join(dir, name)))
      .digest("hex");
    out[name] = `${hash} ${info.mode.toString(8)} ${info.mtimeMs}`;
  }
  return out;
}

describe("--profile on an everyday Firefox profile", () => {
  it(
    "exits 2 with one line saying how to use a fresh profile, and writes nothing there",
    async () => {
      const profile = join(work, "everyday");
      await mkdir(profile);
      await writeFile(
        join(profile, "prefs.js"),
        'user_pref("browser.startup.homepage", "https://example.org/");\n',
      );
      await writeFile(join(profile, "places.sqlite"), "SQLite format 3\0history");
      await writeFile(join(profile, "logins.json"), '{"logins":[]}');
      await writeFile(join(profile, "key4.db"), "SQLite format 3\0key");
      const before = await fingerprint(profile);

      const run = await runCli(["snapshot", "about:blank", "--profile", profile]);
      expect(run.code, run.stderr).toBe(2);
      const lines = run.stderr.trim().split("\n");
      expect(lines, run.stderr).toHaveLength(1);
      expect(lines[0]).toContain(
        `The folder ${profile} holds a Firefox profile that webbrain did not create`,
      );
      expect(lines[0]).toContain("Pass a new or empty folder to --profile");
      expect(lines[0]).toContain("cookies.sqlite");
      expect(await fingerprint(profile)).toEqual(before);
      expect(existsSync(join(profile, "user.js"))).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );
});
