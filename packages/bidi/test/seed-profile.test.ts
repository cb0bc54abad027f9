/**
 * Seed profiles (seed-profile.ts): temp profiles start as a copy of one warmed profile per
 * Firefox build. What must hold, since the seed goes into every temp profile:
 * - a real launch builds the seed once, without the files that belong to one launch (prefs,
 *   locks, marker, pkcs11.txt naming the seed's path), and copies of it carry nothing one run
 *   did into the next (a cookie set in one seeded Firefox is not in the next);
 * - a seed folder another user could have written is neither used nor touched;
 * - a build under way elsewhere, a half-built seed or `WEBBRAIN_SEED_PROFILES=off` means an
 *   empty profile, never a wait or a broken one.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTab, launchFirefox, navigate, resolveFirefoxExecutable } from "../src/index.js";
import {
  ensureSeedProfile,
  type FirefoxBuild,
  firefoxBuildOf,
  SEED_PROFILES_ENV,
  seedProfileDir,
  seedProfilesRoot,
} from "../src/seed-profile.js";

const FIREFOX_TEST_TIMEOUT_MS = 120_000;
const BUILD: FirefoxBuild = { installDir: "/opt/firefox-test", version: "153.0", buildId: "20260101000000" };

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "bidi-seed-profile-"));
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** A cache folder of its own for one test, as XDG_CACHE_HOME. */
function cacheEnv(name: string): NodeJS.ProcessEnv {
  const cache = join(scratch, name);
  mkdirSync(cache, { recursive: true, mode: 0o700 });
  return { ...process.env, XDG_CACHE_HOME: cache };
}

/** A stand-in for Firefox's first start: writes what a real one leaves, launch files included. */
function fakeWarm(calls: string[]) {
  return async (profileDir: string) => {
    calls.push(profileDir);
    mkdirSync(join(profileDir, "startupCache"), { recursive: true });
    for (const file of ["places.sqlite", "prefs.js", "user.js", "pkcs11.txt", "webbrain-profile.json"])
      writeFileSync(join(profileDir, file), file);
    writeFileSync(join(profileDir, "startupCache", "startupCache.8.little"), "cache");
    writeFileSync(join(profileDir, "startupCache", "urlCache.bin"), profileDir);
  };
}

describe("seed profiles", () => {
  it("a seed is built once, without what belongs to one launch", async () => {
    const env = cacheEnv("once");
    const calls: string[] = [];
    const seed = await ensureSeedProfile(BUILD, fakeWarm(calls), env);
    expect(seed).toBe(seedProfileDir(seedProfilesRoot(env)!, BUILD));
    expect(readdirSync(seed!).sort()).toEqual(["places.sqlite", "startupCache", "webbrain-seed.json"]);
    expect(readdirSync(join(seed!, "startupCache"))).toEqual(["startupCache.8.little"]);
    expect(await ensureSeedProfile(BUILD, fakeWarm(calls), env)).toBe(seed);
    expect(calls).toHaveLength(1);
    // Nothing of the build is left beside the seed.
    expect(readdirSync(seedProfilesRoot(env)!)).toEqual([seed!.split("/").at(-1)]);
  });

  it("a seed folder others may write is not used, and not touched", async () => {
    const env = cacheEnv("shared");
    const seed = await ensureSeedProfile(BUILD, fakeWarm([]), env);
    chmodSync(seed!, 0o777);
    const calls: string[] = [];
    expect(await ensureSeedProfile(BUILD, fakeWarm(calls), env)).toBeUndefined();
    expect(calls).toHaveLength(0);
    expect(existsSync(join(seed!, "places.sqlite"))).toBe(true);
    // The same for the folder that holds the seeds.
    chmodSync(seed!, 0o700);
    chmodSync(seedProfilesRoot(env)!, 0o777);
    expect(await ensureSeedProfile(BUILD, fakeWarm(calls), env)).toBeUndefined();
    expect(calls).toHaveLength(0);
  });

  it("a build under way, a half seed, a failed build or seeding turned off give no seed and no wait", async () => {
    const env = cacheEnv("busy");
    const root = seedProfilesRoot(env)!;
    mkdirSync(join(root, ".build-other"), { recursive: true, mode: 0o700 });
    chmodSync(root, 0o700);
    const calls: string[] = [];
    expect(await ensureSeedProfile(BUILD, fakeWarm(calls), env)).toBeUndefined();
    expect(calls).toHaveLength(0);
    rmSync(join(root, ".build-other"), { recursive: true });

    // A seed folder without its done-file (not ours to finish) is left as it is.
    mkdirSync(seedProfileDir(root, BUILD), { mode: 0o700 });
    expect(await ensureSeedProfile(BUILD, fakeWarm(calls), env)).toBeUndefined();
    expect(calls).toHaveLength(0);
    rmSync(seedProfileDir(root, BUILD), { recursive: true });

    const failing = async () => {
      throw new Error("Firefox did not start");
    };
    expect(await ensureSeedProfile(BUILD, failing, env)).toBeUndefined();
    expect(readdirSync(root)).toEqual([]);

    expect(
      await ensureSeedProfile(BUILD, fakeWarm(calls), { ...env, [SEED_PROFILES_ENV]: "off" }),
    ).toBeUndefined();
    expect(calls).toHaveLength(0);
  });

  it(
    "a real launch builds the seed, starts from it, and one seeded Firefox's cookie is not in the next",
    async () => {
      const env = cacheEnv("real");
      const first = await launchFirefox({ env });
      let profileDir = first.profileDir;
      try {
        const build = firefoxBuildOf(resolveFirefoxExecutable(undefined, env));
        const seed = seedProfileDir(seedProfilesRoot(env)!, build!);
        const entries = readdirSync(seed);
        expect(entries).toContain("webbrain-seed.json");
        expect(entries).toContain("startupCache");
        for (const launchOwn of [
          "prefs.js",
          "user.js",
          "lock",
          ".parentlock",
          "webbrain-profile.json",
          "pkcs11.txt",
        ])
          expect(entries, launchOwn).not.toContain(launchOwn);
        // The temp profile is a copy: marked as this launch's own temp profile, with the seed's cache.
        expect(existsSync(join(profileDir, "startupCache"))).toBe(true);
        expect(JSON.parse(readFileSync(join(profileDir, "webbrain-profile.json"), "utf8"))).toMatchObject({
          kind: "temp",
        });

        const tab = await createTab(first.client);
        await navigate(first.client, tab, "about:blank");
        await first.client.send("storage.setCookie", {
          cookie: { name: "seeded", value: { type: "string", value: "one" }, domain: "example.test" },
        });
        const set = await first.client.send("storage.getCookies", {});
        expect(set.cookies.map((c) => c.name)).toContain("seeded");
      } finally {
        await first.close();
      }
      expect(existsSync(profileDir)).toBe(false);

      const second = await launchFirefox({ env });
      profileDir = second.profileDir;
      try {
        const { cookies } = await second.client.send("storage.getCookies", {});
        expect(cookies.map((c) => c.name)).not.toContain("seeded");
      } finally {
        await second.close();
      }
      expect(existsSync(profileDir)).toBe(false);
    },
    FIREFOX_TEST_TIMEOUT_MS,
  );
});
