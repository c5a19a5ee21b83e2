"""Line-based text comparison built on :mod:`difflib`."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Tag = Literal["equal", "insert", "delete", "replace"]


@dataclass(frozen=True)
class DiffOp:
    """One run of lines: ``a_lines`` (old) became ``b_lines`` (new)."""

    tag: Tag
    a_start: int
    b_start: int
    a_lines: tuple[str, ...]
    b_lines: tuple[str, ...]


def _as_lines(text: str | Sequence[str]) -> list[str]:
    if isinstance(text, str):
        return text.splitlines()
    return list(text)


def diff_lines(a: str | Sequence[str], b: str | Sequence[str]) -> list[DiffOp]:
    """Compare two texts (or lists of lines) line by line.

    Consecutive operations never share a tag; concatenating the ``a_lines`` of
    all operations gives back ``a``, and likewise for ``b``.
    """
    old, new = _as_lines(a), _as_lines(b)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [
        DiffOp(tag, i1, j1, tuple(old[i1:i2]), tuple(new[j1:j2]))  # type: ignore[arg-type]
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
    ]


def similarity(a: str, b: str) -> float:
    """A similarity ratio between 0.0 and 1.0 (three decimals) of two texts' lines."""
    old, new = _as_lines(a), _as_lines(b)
    if not old and not new:
        return 1.0
    return round(difflib.SequenceMatcher(None, old, new, autojunk=False).ratio(), 3)


def render_diff(ops: Sequence[DiffOp]) -> str:
    """Format operations as text: ``"  "`` unchanged, ``"- "`` removed, ``"+ "`` added."""
    out: list[str] = []
    for op in ops:
        if op.tag == "equal":
            out.extend(f"  {line}" for line in op.a_lines)
        else:
            out.extend(f"- {line}" for line in op.a_lines)
            out.extend(f"+ {line}" for line in op.b_lines)
    return "\n".join(out) + ("\n" if out else "")
