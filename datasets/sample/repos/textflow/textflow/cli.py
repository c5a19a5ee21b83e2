"""Command line interface: ``python3 -m textflow COMMAND ...``.

Commands read text from a file argument or, when it is ``-`` or omitted,
from standard input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TextIO

from textflow import __version__
from textflow.markup import parse
from textflow.render import render_html, render_plain
from textflow.util.slug import slugify
from textflow.util.stats import analyze, top_words
from textflow.util.wrap import fill


def _read(path: str | None, stdin: TextIO) -> str:
    if path in (None, "-"):
        return stdin.read()
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="textflow", description="Small text processing tools.")
    parser.add_argument("--version", action="version", version=f"textflow {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    slug = commands.add_parser("slug", help="print the URL slug of the given words")
    slug.add_argument("words", nargs="+")

    wrap = commands.add_parser("wrap", help="re-wrap a text file")
    wrap.add_argument("file", nargs="?")
    wrap.add_argument("-w", "--width", type=int, default=70)

    stats = commands.add_parser("stats", help="print word and sentence counts")
    stats.add_argument("file", nargs="?")
    stats.add_argument("--json", action="store_true", help="print JSON instead of a table")
    stats.add_argument("--top", type=int, default=0, metavar="N", help="also list the N most frequent words")

    render = commands.add_parser("render", help="render a Markdown-subset file")
    render.add_argument("file", nargs="?")
    render.add_argument("-f", "--format", choices=("html", "plain"), default="html")
    render.add_argument("-w", "--width", type=int, default=None, help="wrap plain output")
    return parser


def main(argv: Sequence[str] | None = None, *, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Run the command line; return the process exit status."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    args = _build_parser().parse_args(argv)
    try:
        if args.command == "slug":
            print(slugify(" ".join(args.words)), file=stdout)
        elif args.command == "wrap":
            paragraphs = [p for p in _read(args.file, stdin).split("\n\n") if p.strip()]
            print("\n\n".join(fill(p, args.width) for p in paragraphs), file=stdout)
        elif args.command == "stats":
            text = _read(args.file, stdin)
            result: dict[str, object] = dict(analyze(text).as_dict())
            if args.top:
                result["top_words"] = top_words(text, args.top)
            if args.json:
                print(json.dumps(result, indent=2), file=stdout)
            else:
                for key, value in result.items():
                    print(f"{key:>20}: {value}", file=stdout)
        elif args.command == "render":
            document = parse(_read(args.file, stdin))
            if args.format == "html":
                stdout.write(render_html(document))
            else:
                stdout.write(render_plain(document, width=args.width))
    except (OSError, ValueError) as exc:
        print(f"textflow: error: {exc}", file=sys.stderr)
        return 1
    return 0
