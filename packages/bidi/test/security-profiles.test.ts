/**
 * Profiles (issue 20, point 7), in real headless Firefox:
 * - `--profile` on an everyday Firefox profile (prefs.js, places.sqlite, logins.json, key4.db)
 *   was accepted and given a user.js that turned off Safe Browsing, the popup blocker and more.
 *   Now it is refused with ForeignProfileError and left byte-for-byte as it was.
 * - A profile webbrain created keeps working, with Safe Browsing on (Firefox's built-in test
 *   phishing page is blocked) and the popup blocker on.
 * - A throw-away temp profile keeps the popup blocker on and Safe Browsing off (as decided:
 *   its lists would never be downloaded in time to protect anything).
 * - Temp profiles whose owner died are swept at the next start; nothing else is touched.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BidiError,
  createTab,
  createTempProfile,
  evaluate,
  ForeignProfileError,
  launchFirefox,
  PROFILE_DIR_PREFIX,
  PROFILE_MARKER_FILE,
  sweepDeadTempProfiles,
} from "../src/index.js";

/** Firefox's built-in Safe Browsing test entry: blocked locally, no network needed. */
const TEST_PHISHING_URL = "http://itisatrap.org/firefox/its-a-trap.html";
const FIREFOX_TEST_TIMEOUT_MS = 120_000;

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "bidi-security-profiles-"));
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** Every file under `dir` with its bytes' hash, mode and mtime: "untouched" means all equal. */
function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    const info = statSync(path);
    const hash = info.isFile() ? createHash("sha256").update(readFileSync(path)).digest("hex") : "dir";
    out[name] = `${hash} ${info.mode.toString(8)} ${info.mtimeMs}`;
  }
  return out;
}

/** A folder shaped like the profile a person uses every day. */
function everydayProfile(name: string): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, "storage", "default"), { recursive: true });
  writeFileSync(join(dir, "prefs.js"), 'user_pref("browser.startup.homepage", "https://example.org/");\n');
  writeFileSync(join(dir, "places.sqlite"), Buffer.from("SQLite format 3\0history of a person"));
  writeFileSync(
    join(dir, "logins.json"),
    '{"nextId":2,"logins":[{"id":1,"hostname":"https://bank.example"}]}',
  );
  writeFileSync(join(dir, "key4.db"), Buffer.from("SQLite format 3\0the key of the saved passwords"));
  writeFileSync(join(dir, "cookies.sqlite"), Buffer.from("SQLite format 3\0cookies"));
  writeFileSync(join(dir, "times.json"), '{"created":1700000000000}');
  return dir;
}

/** Where navigating to Firefox's test phishing page ends: "blocked" by Safe Browsing, or not. */
async function phishingPageOutcome(browser: Awaited<ReturnType<typeof launchFirefox>>): Promise<string> {
  const tab = await createTab(browser.client);
  const error = await browser.client
    .send("browsingContext.navigate", { context: tab, url: TEST_PHISHING_URL, wait: "complete" })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(BidiError); // blocked or unreachable: either way no page loads
  const documentUri = await evaluate<string>(browser.client, tab, "document.documentURI");
  return documentUri.startsWith("about:blocked?e=deceptiveBlocked")
    ? "blocked"
    : (documentUri.split("?")[0] ?? "");
}

/** What `window.open` answers from script with no user gesture: null when the blocker is on. */
async function openWithoutGesture(browser: Awaited<ReturnType<typeof launchFirefox>>): Promise<string> {
  const tab = await createTab(browser.client);
  return evaluate<string>(browser.client, tab, "String(window.open('about:blank', '_blank'))");
}

describe("--profile on a folder webbrain did not create", () => {
  it("refuses an everyday profile and leaves it byte-for-byte as it was, with no user.js", async () => {
    const dir = everydayProfile("everyday");
    const before = fingerprint(dir);
    const error = await launchFirefox({ profileDir: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForeignProfileError);
    const message = (error as Error).message;
    expect(message).toContain("holds a Firefox profile that webbrain did not create");
    expect(message).toContain("prefs.js, places.sqlite, logins.json, key4.db, cookies.sqlite");
    expect(message).toContain("new or empty folder");
    expect(message).toContain("cookies.sqlite carries the sites' sign-ins");
    expect(message).toContain("logins.json with key4.db are your saved passwords");
    expect(fingerprint(dir)).toEqual(before);
    expect(existsSync(join(dir, "user.js"))).toBe(false);
    expect(existsSync(join(dir, PROFILE_MARKER_FILE))).toBe(false);
  });

  it("refuses an everyday profile with its own user.js without rewriting it", async () => {
    const dir = everydayProfile("everyday-user-js");
    writeFileSync(join(dir, "user.js"), 'user_pref("browser.safebrowsing.phishing.enabled", true);\n');
    const before = fingerprint(dir);
    await expect(launchFirefox({ profileDir: dir })).rejects.toBeInstanceOf(ForeignProfileError);
    expect(fingerprint(dir)).toEqual(before);
  });

  it("refuses any other non-empty folder, naming what is in it", async () => {
    const dir = join(scratch, "documents");
    mkdirSync(dir);
    writeFileSync(join(dir, "notes.txt"), "mine");
    const before = fingerprint(dir);
    const error = await launchFirefox({ profileDir: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForeignProfileError);
    expect((error as Error).message).toContain("is not empty (notes.txt)");
    expect(fingerprint(dir)).toEqual(before);
  });
});

describe("a profile webbrain created", () => {
  it(
    "is marked at creation, works again on the next start, and has Safe Browsing and the popup blocker on",
    async () => {
      const dir = join(scratch, "kept");
      const first = await launchFirefox({ profileDir: dir });
      try {
        expect(existsSync(join(dir, PROFILE_MARKER_FILE))).toBe(true);
        expect(readFileSync(join(dir, "user.js"), "utf8")).toContain("rewritten at every start by webbrain");
      } finally {
        await first.close();
      }
      expect(existsSync(join(dir, "prefs.js"))).toBe(true); // a real profile now, and still ours
      const second = await launchFirefox({ profileDir: dir });
      try {
        expect(await phishingPageOutcome(second)).toBe("blocked");
        expect(await openWithoutGesture(second)).toBe("null");
      } finally {
        await second.close();
      }
      expect(existsSync(dir)).toBe(true);
    },
    FIREFOX_TEST_TIMEOUT_MS,
  );

  it(
    "made before markers existed (webbrain's user.js, no marker) is still accepted, and marked",
    async () => {
      const dir = join(scratch, "legacy");
      mkdirSync(dir);
      writeFileSync(
        join(dir, "user.js"),
        "// Written by @webbrain/bidi: automation prefs, rewritten at every start by webbrain (--profile).\n",
      );
      writeFileSync(join(dir, "prefs.js"), "");
      const browser = await launchFirefox({ profileDir: dir });
      await browser.close();
      expect(existsSync(join(dir, PROFILE_MARKER_FILE))).toBe(true);
    },
    FIREFOX_TEST_TIMEOUT_MS,
  );

  it(
    "a temp profile keeps the popup blocker on and, as decided, Safe Browsing off",
    async () => {
      const browser = await launchFirefox();
      try {
        expect(await openWithoutGesture(browser)).toBe("null");
        expect(await phishingPageOutcome(browser)).toBe("about:neterror");
      } finally {
        await browser.close();
      }
    },
    FIREFOX_TEST_TIMEOUT_MS,
  );
});

/** The pid of a process that has exited (and been reaped): surely dead. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid ?? -1;
}

function markedTempFolder(parent: string, name: string, ownerPid: number): string {
  const dir = join(parent, `${PROFILE_DIR_PREFIX}${name}`);
  mkdirSync(dir);
  writeFileSync(join(dir, "prefs.js"), "");
  writeFileSync(
    join(dir, PROFILE_MARKER_FILE),
    JSON.stringify({ createdBy: "webbrain", kind: "temp", ownerPid, createdAt: new Date().toISOString() }),
  );
  return dir;
}

describe("temp profiles of dead runs", () => {
  it("are swept when their owner is dead and no Firefox holds them; nothing else is touched", async () => {
    const parent = join(scratch, "tmp-sweep");
    mkdirSync(parent);
    const dead = await deadPid();
    const orphan = markedTempFolder(parent, "orphan", dead);
    const live = markedTempFolder(parent, "live-owner", process.ppid);
    const held = markedTempFolder(parent, "held", dead);
    symlinkSync(`127.0.0.1:+${process.ppid}`, join(held, "lock")); // a live Firefox would hold it so
    const unmarked = join(parent, `${PROFILE_DIR_PREFIX}unmarked`);
    mkdirSync(unmarked);
    writeFileSync(join(unmarked, "prefs.js"), "");
    const other = join(parent, "someone-elses");
    mkdirSync(other);
    writeFileSync(
      join(other, PROFILE_MARKER_FILE),
      JSON.stringify({ createdBy: "webbrain", kind: "temp", ownerPid: dead }),
    );

    expect(sweepDeadTempProfiles(parent)).toEqual([orphan]);
    expect(existsSync(orphan)).toBe(false);
    for (const kept of [live, held, unmarked, other]) expect(existsSync(kept), kept).toBe(true);
  });

  it("are swept when their Firefox is a zombie that init has not reaped yet", async () => {
    // perl (perl-base is essential in Debian) forks a child that exits at once and never reaps
    // it: a zombie for as long as the parent sleeps, as a Firefox whose watchdog died is until
    // init reaps it. (`sh -c "true & ...; exec sleep"` was used before: dash sometimes reaped
    // the child before the exec, and a clean-clone CI run read a /proc entry that was gone.)
    const parent = join(scratch, "tmp-sweep-zombie");
    mkdirSync(parent);
    const holder = spawn(
      "perl",
      ["-e", '$| = 1; my $pid = fork(); exit 0 if $pid == 0; print "$pid\n"; sleep 30;'],
      {
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    try {
      const zombie = Number(await new Promise<string>((resolve) => holder.stdout.once("data", resolve)));
      await waitForState(zombie, "Z");
      const dead = await deadPid();
      const orphan = markedTempFolder(parent, "zombie-firefox", dead);
      symlinkSync(`127.0.0.1:+${zombie}`, join(orphan, "lock"));
      expect(sweepDeadTempProfiles(parent)).toEqual([orphan]);
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("createTempProfile marks its folder with this process as the owner", () => {
    const dir = createTempProfile();
    try {
      const marker = JSON.parse(readFileSync(join(dir, PROFILE_MARKER_FILE), "utf8")) as {
        kind: string;
        ownerPid: number;
      };
      expect(marker).toMatchObject({ kind: "temp", ownerPid: process.pid });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Waits (bounded) until /proc says `pid` is in `state` (a letter of /proc/PID/stat). */
async function waitForState(pid: number, state: string): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    if (stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === state) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`process ${pid} never reached state ${state}`);
}
