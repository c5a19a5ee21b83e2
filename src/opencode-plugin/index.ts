import { createRcmServer } from "./plugin.js";

/**
 * The package entry for OpenCode (`"plugin": [["switch-swe/opencode-plugin", {"mode": "rcm"}]]` in
 * opencode.json, or a `file://` path to this file). OpenCode 1.18.33 takes a default export
 * `{id, server}` and passes the options of the plugin entry to `server`.
 */
const plugin = { id: "switch-swe-rcm", server: createRcmServer() };
export default plugin;
