"""``torch_abi``: the package's undefined ``aoti_*`` symbols (ELF ``.dynsym``, never loaded) against the C-shim
symbols each torch release exports (`inspector/data/shim_symbols.json`, made by tools/make_shim_table.py): the
oldest release that has them all, and with ``torch="2.13"`` what that release lacks; the archive's layout against
an old loader (torch 2.6 wants no root folder).  ``glibc``: the GLIBC / GLIBCXX versions the `.so` needs
(``.gnu.version_r``), against this host's glibc."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path

import inspector.elf as elf
import inspector.host as host

from ...errors import UsageError
from ...explain import doctor as say
from ..kernel_binaries import member_reader
from .base import Check, Here, Subject


@lru_cache(maxsize=1)
def shim_table() -> dict:
    try:
        text = resources.files("inspector").joinpath("data/shim_symbols.json").read_text()
    except (FileNotFoundError, ModuleNotFoundError):
        text = (Path(__file__).resolve().parents[2] / "data" / "shim_symbols.json").read_text()
    return json.loads(text)


def resolve_release(torch: str) -> str:
    """``"2.13"`` or ``"2.13.0"`` -> the table's release; a UsageError naming the known ones otherwise."""
    known = list(shim_table()["releases"])
    t = torch.strip().split("+")[0]
    if t in known:
        return t
    major_minor = host.release_numbers(t)
    if major_minor:
        hits = [r for r in known if tuple(r.split(".")[:2]) == major_minor]
        if hits:
            return hits[-1]
    raise UsageError(say.unknown_release(torch, known))


def _newest(versions: list[str]) -> str | None:
    return max(versions, key=host.version_key) if versions else None


class TorchAbi(Check):
    name = "torch_abi"

    def run(self, m: Subject, here: Here):
        out = []
        table = shim_table()
        releases = list(table["releases"])
        release = here.release
        for so in m.files.shared_objects:
            try:
                read = member_reader(m.pkg, so)
                syms = elf.dynamic_symbols(read)
                versions = elf.needed_versions(read)
            except elf.ElfError as e:
                out.append(m.finding("torch_abi", "error", "abi_unreadable", so=so, error=str(e)))
                continue
            shim = sorted({s.name for s in syms if not s.defined and s.name.startswith("aoti_")})
            m.readings["shim_symbols"] = len(shim)
            unknown = [s for s in shim if s not in table["symbols"]]
            have = [r for r in releases if all(r in table["symbols"].get(s, ()) for s in shim)]
            oldest = have[0] if have else None
            m.readings["oldest_torch"] = oldest
            if unknown:
                out.append(m.finding("torch_abi", "warn", "abi_unknown", so=so, unknown=unknown, first=releases[0],
                                     last=releases[-1]))
            if release:
                lack = [s for s in shim if release not in table["symbols"].get(s, ())]
                if lack:
                    out.append(m.finding("torch_abi", "error", "abi_release_lacks", so=so, release=release, lack=lack,
                                         oldest=oldest))
                else:
                    out.append(m.finding("torch_abi", "info", "abi_release_has", so=so, release=release,
                                         symbols=len(shim)))
            elif oldest:
                out.append(m.finding("torch_abi", "info", "abi_oldest", so=so, symbols=len(shim), oldest=oldest))
            glibc = _newest([v for _lib, v in versions if v.startswith("GLIBC_")])
            m.readings["glibc"], m.readings["glibcxx"] = glibc, _newest([v for _lib, v in versions
                                                                         if v.startswith("GLIBCXX_")])
            if here.host_glibc and glibc and host.version_key(glibc) > host.version_key(here.host_glibc):
                out.append(m.finding("glibc", "error", "glibc_too_new", so=so, need=glibc, host=here.host_glibc))
        return out


# The oldest loader seen to want the archive's members at its top (`data/aotinductor/…`, no root folder).
ROOTLESS_LOADERS = ("2.6",)


class Layout(Check):
    """torch 2.6's aoti_load_package looks for `data/aotinductor/` at the archive's top: a package with a root
    folder (every build since) fails there before any symbol is resolved."""

    name = "layout"

    def run(self, m: Subject, here: Here):
        root = getattr(m.pkg.archive, "root", "")
        release = here.release
        if not release or not root or m.pkg.archive.kind != "zip" or not release.startswith(ROOTLESS_LOADERS):
            return []
        return [m.finding("torch_abi", "error", "layout_root", release=release, root=root)]
