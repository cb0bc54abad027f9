/**
 * MiniWoB++ tasks from a local copy of the repository's html folder (nothing is downloaded):
 * `<dir>/miniwob/<task>.html`, with the shared `<dir>/core/core.js` that reports the reward, and
 * a static server for that folder on 127.0.0.1 (the pages load ../core and ../common).
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, resolve, sep } from "node:path";
import { UsageError } from "../errors.js";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
  ".gif": "image/gif",
  ".jpg": "image/jpeg",
  ".svg": "image/svg+xml",
  ".json": "application/json",
};

/** Task names (file names without .html) in `<dir>/miniwob`, sorted; `only` filters them. */
export async function listMiniwobTasks(tasksDir: string, only?: readonly string[]): Promise<string[]> {
  const root = resolve(tasksDir);
  if (!existsSync(join(root, "core", "core.js")) || !existsSync(join(root, "miniwob"))) {
    throw new UsageError(
      `--tasks-dir ${tasksDir} is not MiniWoB++'s html folder: it needs core/core.js and miniwob/*.html (in a clone of Farama-Foundation/miniwob-plusplus it is miniwob/html).`,
    );
  }
  const names = (await readdir(join(root, "miniwob")))
    .filter((f) => f.endsWith(".html"))
    .map((f) => f.slice(0, -".html".length))
    .sort();
  if (!only || only.length === 0) return names;
  const unknown = only.filter((t) => !names.includes(t));
  if (unknown.length > 0) {
    throw new UsageError(
      `Unknown MiniWoB++ task(s): ${unknown.join(", ")}. ${names.length} tasks are in ${tasksDir}/miniwob.`,
    );
  }
  return only.filter((t, i) => only.indexOf(t) === i);
}

export interface TaskServer {
  origin: string;
  taskUrl(task: string): string;
  close(): Promise<void>;
}

/** Serves `tasksDir` read-only on 127.0.0.1 (an OS-chosen port). */
export function serveTasks(tasksDir: string): Promise<TaskServer> {
  const base = resolve(tasksDir);
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    const file = resolve(base, `.${normalize(path)}`);
    if (!file.startsWith(base + sep)) {
      res.writeHead(403).end();
      return;
    }
    readFile(file).then(
      (body) =>
        res
          .writeHead(200, {
            "content-type": CONTENT_TYPES[extname(file)] ?? "application/octet-stream",
            "cache-control": "no-store",
          })
          .end(body),
      () => res.writeHead(404).end(),
    );
  });
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      const origin = `http://127.0.0.1:${port}`;
      done({
        origin,
        taskUrl: (task) => `${origin}/miniwob/${encodeURIComponent(task)}.html`,
        close: () =>
          new Promise((closed) => {
            server.closeAllConnections();
            server.close(() => closed());
          }),
      });
    });
  });
}
