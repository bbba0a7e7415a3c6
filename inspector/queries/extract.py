"""Copy a package's members out (``pt2-inspect extract``): text members by default, every member with
``everything``.  Uses ``Archive.extract``, which copies into a fresh temp dir and refuses unsafe member names
(absolute, ``..``, drive letters); the result is then moved into the folder asked for.  Nothing is loaded or run.
"""

from __future__ import annotations

TEXT_SUFFIXES = (".cpp", ".h", ".hpp", ".py", ".json", ".txt", ".ptx", ".yaml")


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
