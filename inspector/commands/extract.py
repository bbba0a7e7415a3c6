"""`pt2-inspect extract`: copy a package's generated sources out, to read with your own tools.

Uses `Archive.extract`, which copies into a fresh temp dir and refuses unsafe member names (absolute, ``..``,
drive letters); the result is then moved into the folder asked for.  Nothing is loaded or run.
"""

from __future__ import annotations

import argparse

HELP = """Copy the package's text members (wrapper.cpp, kernel.cpp, Triton sources, metadata
JSON) into a new folder; --all copies every member (also .so, cubins and weights:
copied as bytes, never loaded). Member names that would land outside the folder
are refused.

examples:
  pt2-inspect extract pkg.pt2 -o pkg_src && grep -n 'int64_t s59' pkg_src/*/data/aotinductor/model/*.wrapper.cpp
  pt2-inspect extract pkg.pt2 -o pkg_all --all
"""

TEXT_SUFFIXES = (".cpp", ".h", ".hpp", ".py", ".json", ".txt", ".ptx", ".yaml")


def add_parser(sub) -> None:
    from ..cli import EXIT_CODES

    p = sub.add_parser("extract", help="copy the generated sources out into a folder", description=HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXIT_CODES)
    p.add_argument("package", metavar="PKG")
    p.add_argument("-o", "--output", metavar="DIR", required=True, help="a folder that does not exist yet, or is empty")
    p.add_argument("--all", action="store_true", help="every member, binaries included")
    p.add_argument("--json", action="store_true", help="print the members written as one JSON object")
    p.set_defaults(run=run)


def is_text_member(name: str, size: int) -> bool:
    base = name.rsplit("/", 1)[-1]
    return base.endswith(TEXT_SUFFIXES) or ("." not in base and size < 4096)  # archive_format, version…


def extract(archive, dest, everything: bool = False) -> list[str]:
    """Copy members (text ones unless ``everything``) into ``dest`` (new or empty); return their names."""
    import os
    import shutil
    from pathlib import Path

    from ..errors import UsageError

    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise UsageError(f"-o {dest}: exists and is not an empty folder (nothing is overwritten)")
    if not dest.parent.is_dir():
        raise UsageError(f"-o {dest}: the folder {dest.parent} does not exist")
    names = [n for n in archive.members() if everything or is_text_member(n, archive.size(n))]
    tmp = archive.extract(names)
    try:
        dest.mkdir(exist_ok=True)
        for entry in os.listdir(tmp):
            shutil.move(str(tmp / entry), str(dest / entry))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return names


def run(a) -> int:
    import json
    import sys

    from ..archive import Archive

    with Archive.open(a.package) as ar:
        names = extract(ar, a.output, a.all)
        skipped = list(getattr(ar, "skipped", []))
    if skipped:
        print(f"pt2-inspect: note: refused {len(skipped)} member(s) with unsafe names or links: "
              f"{', '.join(map(repr, skipped[:5]))}", file=sys.stderr)
    if a.json:
        print(json.dumps({"output": a.output, "members": names}, indent=2))
    else:
        print(f"extracted {len(names)} member(s) into {a.output}" + ("" if a.all else " (text only; --all for every member)"))
        for n in names:
            print(f"  {n}")
    return 0
