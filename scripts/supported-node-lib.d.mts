// Types for supported-node-lib.mjs (plain JavaScript, so it runs on an end-of-life Node too).
export declare const versions: { supportedMajors: number[]; current: string; oldest: string };
export declare function fail(message: string): never;
export declare function isSupported(nodeVersion: string): boolean;
export declare function installedNodeBin(version: string): string;
export declare function runOnSupportedNode(command: string[]): void;
