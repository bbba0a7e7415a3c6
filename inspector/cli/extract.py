"""`pt2-inspect extract`: copy a package's generated sources out, to read with your own tools
(the copying is ``inspector.queries.extract.extract``)."""

from __future__ import annotations

from ._args import add_json, add_output, add_package, command_parser

HELP = """Copy the package's text members (wrapper.cpp, kernel.cpp, Triton sources, metadata
JSON) into a new folder; --all copies every member (also .so, cubins and weights:
copied as bytes, never loaded). Member names that would land outside the folder
are refused.

examples:
  pt2-inspect extract sample_packages/cuda/jagged/jagged.pt2 -o jagged_src && grep -n 'int64_t s59' jagged_src/*/data/aotinductor/model/*.wrapper.cpp
  pt2-inspect extract sample_packages/cuda/jagged/jagged.pt2 -o jagged_all --all
"""

def add_parser(sub):
    p = command_parser(sub, "extract", "copy the generated sources out into a folder", HELP)
    add_package(p)
    add_output(p, "a folder that does not exist yet, or is empty", metavar="DIR", required=True)
    p.add_argument("--all", action="store_true", help="every member, binaries included")
    add_json(p, "print the members written as one JSON object")
    return p


def run(a) -> int:
    import json
    import sys

    from ..queries.extract import extract
    from ..remote import open_archive

    with open_archive(a.package) as ar:
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
