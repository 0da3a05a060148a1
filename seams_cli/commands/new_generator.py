"""``seams new-generator NAME --reference FILE [--out DIR] [--force]`` (docs/generators.md).

Writes the generator package of docs/generators.md into DIR (default ``seams-NAME``)
and prints ``wrote <path>`` per file. Every refusal (a bad NAME, an
unsupported or unparsable reference, an occupied DIR without --force) is
one line ``seams new-generator: <reason>`` on stderr, exit 1, and nothing is
written. (A missing argument is argparse's usage error, exit 2.)
"""

from __future__ import annotations

import argparse
from pathlib import Path

from seams.errors import SeamsError
from seams.generators.new_generator import default_out, scaffold, write

EXIT_CODES = {SeamsError: 1}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="the generator's name: lowercase letters, digits, hyphens")
    parser.add_argument("--reference", metavar="FILE", required=True,
                        help="a hand-written output the generator should render")
    parser.add_argument("--out", metavar="DIR", help="where to write the package (default: seams-NAME)")
    parser.add_argument("--force", action="store_true",
                        help="let the package's files replace files of the same path in DIR")


def run(args: argparse.Namespace) -> int:
    files = scaffold(args.name, Path(args.reference))
    out = Path(args.out) if args.out else default_out(args.name)
    for path in write(files, out, force=args.force):
        print(f"wrote {path.as_posix()}")
    return 0
