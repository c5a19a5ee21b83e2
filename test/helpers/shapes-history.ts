import { gitHistory } from "./git-history.js";
import { git } from "../verify/fixture.js";

/**
 * A small history (repository `shapes` under `root`): a merged branch of two steps (each adds a function and
 * its test), a chain of two commits on one module, a chain whose tests pass before its changes
 * (no F2P), and a commit of documentation only.
 */
export function writeShapesHistory(root: string): string {
  const { repo, init, commit } = gitHistory(root, "shapes");
  init();
  commit("Initial layout", {
    "shapes/__init__.py": "",
    "shapes/geometry/area.py": "def square(a):\n    return a * a\n",
    "shapes/text/label.py": "def label(name):\n    return name\n",
    "shapes/util/clamp.py": "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n",
    "tests/test_base.py": "from shapes.geometry.area import square\n\n\ndef test_square():\n    assert square(3) == 9\n",
  });
  git(repo, "checkout", "-q", "-b", "circle-and-rect");
  commit("Add the area of a rectangle\n\nRectangles are the next most common shape.", {
    "shapes/geometry/area.py": "def square(a):\n    return a * a\n\n\ndef rect(a, b):\n    return a * b\n",
    "tests/test_rect.py": "from shapes.geometry.area import rect\n\n\ndef test_rect():\n    assert rect(2, 3) == 6\n",
  });
  commit("Add the area of a triangle", {
    "shapes/geometry/area.py":
      "def square(a):\n    return a * a\n\n\ndef rect(a, b):\n    return a * b\n\n\ndef triangle(b, h):\n    return b * h / 2\n",
    "tests/test_triangle.py": "from shapes.geometry.area import triangle\n\n\ndef test_triangle():\n    assert triangle(4, 3) == 6\n",
  });
  git(repo, "checkout", "-q", "main");
  git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch 'circle-and-rect'", "circle-and-rect");
  commit("Upper-case labels", {
    "shapes/text/label.py": "def label(name):\n    return name.upper()\n",
    "tests/test_label.py": "from shapes.text.label import label\n\n\ndef test_upper():\n    assert label('a') == 'A'\n",
  });
  commit("Labels can carry a unit", {
    "shapes/text/label.py": "def label(name, unit=''):\n    return (name + unit).upper()\n",
    "tests/test_label.py":
      "from shapes.text.label import label\n\n\ndef test_upper():\n    assert label('a') == 'A'\n\n\ndef test_unit():\n    assert label('a', 'm') == 'AM'\n",
  });
  commit("Document the package", { "README.md": "shapes\n" });
  commit("Clamp: name the bounds", {
    "shapes/util/clamp.py": "def clamp(x, lo, hi):\n    low, high = lo, hi\n    return max(low, min(x, high))\n",
    "tests/test_clamp.py": "from shapes.util.clamp import clamp\n\n\ndef test_clamp():\n    assert clamp(5, 0, 3) == 3\n",
  });
  // A change of code (a docstring alone is no stage: the syntax tree rule folds it), whose test passes before it too.
  commit("Clamp: accept the bounds in either order", {
    "shapes/util/clamp.py": "def clamp(x, lo, hi):\n    low, high = min(lo, hi), max(lo, hi)\n    return max(low, min(x, high))\n",
    "tests/test_clamp.py":
      "from shapes.util.clamp import clamp\n\n\ndef test_clamp():\n    assert clamp(5, 0, 3) == 3\n\n\ndef test_low():\n    assert clamp(-1, 0, 3) == 0\n",
  });
  return repo;
}
