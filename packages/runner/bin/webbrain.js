#!/usr/bin/env node
// The `webbrain` bin: registers tsx so the TypeScript CLI runs without a build step.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/webbrain.ts");
