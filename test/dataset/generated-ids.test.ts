import { describe, expect, it } from "vitest";
import { generatedLook } from "../../src/dataset/generated-ids.js";

describe("test ids that look generated", () => {
  it("flags clock readings, addresses and temporary paths in parameters", () => {
    expect(generatedLook("tests/test_x.py::test_stamp[2026-12-01T03:40:01.123456]")).toBe("its parameters hold a date");
    expect(generatedLook("tests/test_x.py::test_clock[03:40:01.123456]")).toBe("its parameters hold a time of day");
    expect(generatedLook("tests/test_x.py::test_obj[<Foo object at 0x7f3a2b1c9d80>]")).toBe("its parameters hold a memory address");
    expect(generatedLook("tests/test_x.py::test_dir[/tmp/pytest-of-root/pytest-3/x0]")).toBe("its parameters hold a temporary path");
  });

  it("leaves formatted durations and plain parameters alone (stable on every run)", () => {
    expect(generatedLook("tests/test_termui.py::test_progressbar_format_eta[30-00:00:30]")).toBeNull();
    expect(generatedLook("tests/test_termui.py::test_progressbar_format_eta[99999999999-1157407d 09:46:39]")).toBeNull();
    expect(generatedLook("tests/test_x.py::test_plain[a-b]")).toBeNull();
    // Hex literals a test writes are no addresses (IPython's; a 64-bit address has at least 9 digits).
    expect(generatedLook("tests/test_guarded_eval.py::test_evaluates_literals[context0-0xdeedbeef-3740122863]")).toBeNull();
    expect(generatedLook("tests/test_completer.py::test_match_numeric_literal_for_dict_key[0xdeadbeef-0xdeadbeef]")).toBeNull();
    expect(generatedLook("tests/test_x.py::test_addr[0x1046c3d90]")).toBe("its parameters hold a memory address");
    expect(generatedLook("tests/test_x.py::test_unparametrized")).toBeNull();
  });
});
