/**
 * The optional tools some tests need. On a machine without one, those tests skip with the reason and
 * the run's last line lists them (test/skip-summary-reporter.ts); under CI=true a missing tool fails
 * the file instead, so CI can never go green by skipping.
 */
export type Tool = "bwrap" | "userns" | "cgroups" | "redis-server" | "chromium" | "socat";

export const toolInstall: Record<Tool, string> = {
  bwrap: "apt-get install bubblewrap",
  userns: "bubblewrap with user namespaces (as root, or kernel.unprivileged_userns_clone=1)",
  cgroups: "root on a machine with a writable cgroup hierarchy",
  "redis-server": "apt-get install redis-server",
  chromium: "apt-get install chromium",
  socat: "apt-get install socat",
};
