import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/errors.js";
import { defaultLimits, formatSize, limitsText, parseLimits, parseSize } from "../../src/confine/limits.js";

describe("--limits", () => {
  it("defaults to the paper's machine; resources left out keep their default; none lifts one or all", () => {
    expect(parseLimits("cpus=4,memory=16g,pids=1024")).toEqual(defaultLimits);
    expect(parseLimits("pids=64")).toEqual({ ...defaultLimits, pids: 64 });
    expect(parseLimits(" memory = 512M , cpus=0.5 ")).toEqual({ cpus: 0.5, memory: 512 * 1024 ** 2, pids: 1024 });
    expect(parseLimits("memory=none")).toEqual({ ...defaultLimits, memory: null });
    expect(parseLimits("none")).toEqual({ cpus: null, memory: null, pids: null });
    expect(limitsText(parseLimits("memory=64mib,cpus=2"))).toBe("cpus=2,memory=64m,pids=1024");
    expect(limitsText(parseLimits("none"))).toBe("none");
  });

  it("sizes are binary and written back the way people write them", () => {
    expect(parseSize("16g")).toBe(16 * 2 ** 30);
    expect(parseSize("1.5G")).toBe(1.5 * 2 ** 30);
    expect(parseSize("4096")).toBe(4096);
    expect(parseSize("16q")).toBeNull();
    expect(parseSize("-1m")).toBeNull();
    expect(parseSize("0")).toBeNull();
    expect(formatSize(1536 * 1024)).toBe("1536k");
    expect(formatSize(3 * 2 ** 30)).toBe("3g");
  });

  it("every problem is one line `--limits: pair: what is wrong`", () => {
    const problems = (text: string) => {
      try {
        parseLimits(text);
      } catch (e) {
        expect(e).toBeInstanceOf(InputError);
        return (e as Error).message.split("\n");
      }
      throw new Error("no error");
    };
    expect(problems("memory=16q")).toEqual(["--limits: memory=16q: not a size (e.g. 16g, 512m)"]);
    expect(problems("cpus=0,pids=3,disk=1g,memory")).toEqual([
      "--limits: cpus=0: not a number of CPUs (e.g. 4 or 0.5)",
      "--limits: pids=3: not an integer of at least 8",
      "--limits: disk=1g: unknown resource (one of cpus, memory, pids, or the word none)",
      "--limits: memory: missing value (resource=value)",
    ]);
    expect(problems("pids=64,pids=65")).toEqual(["--limits: pids=65: pids is given twice"]);
  });
});
