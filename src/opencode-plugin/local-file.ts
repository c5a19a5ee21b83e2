import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseRcmOptions, type RcmOptionsInput } from "../rcm/options.js";

/** The module the local plugin file loads: plugin.js next to this file (in dist/opencode-plugin). */
export const pluginModuleUrl = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "plugin.js")).href;

/**
 * The text of a local OpenCode plugin (`.opencode/plugin/*.js`): OpenCode passes no options to local
 * plugins, so they are written into the file. Options given in opencode.json for a plugin entry win.
 */
export function localPluginSource(options: RcmOptionsInput, moduleUrl: string = pluginModuleUrl): string {
  parseRcmOptions(options);
  return [
    "// switch-swe Resumption Context Manager for OpenCode (local plugin). Written by `switch-swe rcm install-plugin`.",
    `import { createRcmServer } from ${JSON.stringify(moduleUrl)};`,
    "",
    `export default { id: "switch-swe-rcm-local", server: createRcmServer(${JSON.stringify(options)}) };`,
    "",
  ].join("\n");
}

/** Writes `<project>/.opencode/plugin/switch-swe-rcm.js`; returns its path. */
export function installLocalPlugin(projectDir: string, options: RcmOptionsInput): string {
  const file = join(resolve(projectDir), ".opencode", "plugin", "switch-swe-rcm.js");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, localPluginSource(options));
  return file;
}
