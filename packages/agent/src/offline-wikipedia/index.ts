/**
 * `@webbrain/agent/offline-wikipedia`: the ZIM reader and the Wikipedia skill's fallback to an
 * archive. A subpath of its own, not the package's main entry, so that bundles which never read
 * an archive (the sidebar, the traces page) do not carry the xz and zstd decoders.
 */
export * from "./offline-wikipedia-http.js";
export * from "./zim-reader.js";
