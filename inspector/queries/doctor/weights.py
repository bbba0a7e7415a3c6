"""``weights``: constants compiled into the `.so` (``_binary_constants_bin_start`` … ``_end``) or left out, against
the bytes the model's constants need; or stored beside the code (``pickle_weights``: the ``data/weights/``
members, sized from the zip directory), which only ``load_pt2(…, load_weights_from_disk=True)`` loads; or one raw
blob member beside the `.so` (``binary_blob``: ``<hash>.wrapper_weights.blob``), which aoti_load_package loads
itself.  With ``--weights``: a weights file against the constants (what load_constants does not check)."""

from __future__ import annotations

import inspector.elf as elf

from ...dialects.members import PICKLED_WEIGHTS_CONFIG, pickled_weights, weights_blob
from ..kernel_binaries import member_reader
from .base import Check, Here, Subject

INLINED_MAX_NUMEL = 8  # Inductor folds a 0-d tensor or a 1-D one of at most 8 elements into kernel code


def weights_blob_bytes(pkg, name: str) -> int | None:
    """The size of the constants blob compiled into a model's .so (``_binary_constants_bin_start`` … ``_end``):
    1 byte when it was built with package_constants_in_so=False; None when the .so says nothing."""
    for so in pkg.files(name).shared_objects:
        try:
            syms = {s.name: s.value for s in elf.dynamic_symbols(member_reader(pkg, so))}
        except elf.ElfError:
            continue
        if "_binary_constants_bin_start" in syms:
            return syms.get("_binary_constants_bin_end", 0) - syms["_binary_constants_bin_start"]
    return None


def weights_on_disk(pkg, name: str) -> tuple[str, list[str], int] | None:
    """A model whose constants are stored beside the code (package_constants_on_disk_format="pickle_weights"):
    its ``weights_config.json`` member, the archive's ``data/weights/weight_<i>`` members and their total bytes,
    from the zip directory alone (never read, never unpickled).  None when the model has no weights_config.json."""
    files = pkg.files(name)
    a = pkg.archive
    members = a.members()
    config = files.folder + PICKLED_WEIGHTS_CONFIG
    if config not in members:
        return None
    pickled = pickled_weights(members, getattr(a, "root", ""))
    return config, pickled, sum(a.size(m) for m in pickled)


def weights_blob_member(pkg, name: str) -> tuple[str, int] | None:
    """A model built with package_constants_on_disk_format="binary_blob": its ``<hash>.wrapper_weights.blob`` member
    and that member's size (zip directory; never read).  None when it has none."""
    member = weights_blob(pkg.archive.members(), pkg.files(name).folder)
    return (member, pkg.archive.size(member)) if member else None


class Weights(Check):
    name = "weights"

    def run(self, m: Subject, here: Here):
        pkg, name, files, readings = m.pkg, m.name, m.files, m.readings
        out = []
        disk = weights_on_disk(pkg, name)
        on_disk = {}
        if disk:
            config, pickled, disk_bytes = disk
            readings["weights_on_disk_members"], readings["weights_on_disk_bytes"] = len(pickled), disk_bytes
            on_disk = dict(config=config, pickled=pickled, disk_bytes=disk_bytes)
        blob_member = weights_blob_member(pkg, name)
        if blob_member:
            readings["weights_blob_member"], readings["weights_blob_bytes"] = blob_member
        for so in files.shared_objects[:1]:
            blob = weights_blob_bytes(pkg, name)
            if blob is None:
                continue
            readings["weights_in_so_bytes"] = blob
            try:
                consts = pkg.index(name).constants()
            except Exception:  # noqa: BLE001 - the finding still stands without the constants' sizes
                consts = []
            need = sum(c.nbytes or 0 for c in consts)
            readings["constants"], readings["constants_bytes"] = len(consts), need
            about = dict(so=so, blob=blob, constants=len(consts), need=need)
            if blob <= 64 and need and blob_member:
                member, size = blob_member
                code, severity = ("weights_blob_truncated", "error") if size < need else ("weights_blob_beside", "info")
                out.append(m.finding("weights", severity, code, **about, member=member, size=size))
            elif blob <= 64 and need and disk:
                out.append(m.finding("weights", "warn", "weights_beside", **about, **on_disk, model=name))
            elif blob <= 64 and need:
                out.append(m.finding("weights", "warn", "weights_left_out", **about, package=str(pkg.path), model=name,
                                     models=len(pkg.model_names), fqns=[c.fqn or c.name for c in consts]))
            elif need:
                out.append(m.finding("weights", "info", "weights_in_so", **about))
                if disk:
                    out.append(m.finding("weights", "info", "weights_also_on_disk", **on_disk))
        if disk and not any(x.kind == "weights" for x in out):  # no .so to read: the members alone say it
            out.append(m.finding("weights", "warn", "weights_beside", **on_disk, model=name))
        return out


class WeightsFile(Check):
    """``--weights``: the file against the model's constants."""

    name = "weights_file"

    def run(self, m: Subject, here: Here):
        if here.weights is None:
            return []
        return compare_weights(m.name, m.pkg.index(m.name).constants(), here.weights, m.readings)


def compare_weights(name: str, constants, wfile, readings) -> list:
    """A weights file against the model's constants: every FQN present, dtype, shape and stride equal, extra
    keys with their reason.  Seen for real (torch 2.13, cpu/embedding): load_constants copies raw bytes, so a
    float16 table, a transposed weight or a table of another size run and give wrong numbers with no error;
    a key the package lacks fails with `Constant not found: <key>`.  ``readings``: the model's DoctorResult.readings
    entry, given the file's counts."""
    from ...weights import contiguous_stride
    from .results import Finding

    def finding(severity: str, code: str, **facts) -> Finding:
        return Finding("weights", severity, code, facts, name)

    out: list[Finding] = []
    by_fqn = {c.fqn or c.name: c for c in constants}
    tensors = wfile.tensors
    src = wfile.path
    readings["weights_file"] = {"path": src, "format": wfile.format, "tensors": len(tensors)}
    prefix = _common_prefix(set(tensors), set(by_fqn))
    missing, mismatched = [], 0
    for fqn, c in by_fqn.items():
        t = tensors.get(fqn) or (tensors.get(prefix + fqn) if prefix else None)
        if t is None:
            missing.append(fqn)
            continue
        problems = []
        if c.dtype and t.dtype and c.dtype != t.dtype:
            problems.append({"what": "dtype", "got": t.dtype, "want": c.dtype})
        if c.shape and list(t.shape) != list(c.shape):
            problems.append({"what": "shape", "got": t.shape, "want": c.shape})
        want_stride = c.stride or contiguous_stride(c.shape)
        got_stride = t.stride if t.stride is not None else contiguous_stride(t.shape)
        if not problems and want_stride and got_stride != want_stride and t.numel > 1:
            problems.append({"what": "stride", "got": got_stride, "want": want_stride})
        if problems:
            mismatched += 1
            out.append(finding("error", "weights_mismatch", fqn=fqn, problems=problems,
                               source=src if wfile.format != "folder" else f"{src}/{t.source}", constant=c.name,
                               index=c.index, dtype=c.dtype, shape=c.shape))
    if prefix:
        out.append(finding("error", "weights_prefix", prefix=prefix, file=src))
    known = set(by_fqn) | {prefix + k for k in by_fqn}
    extra = [k for k in tensors if k not in known]
    inlined = [k for k in extra if tensors[k].numel <= INLINED_MAX_NUMEL and len(tensors[k].shape) <= 1]
    other = [k for k in extra if k not in inlined]
    if inlined:
        out.append(finding("error", "weights_inlined", keys=inlined, max_numel=INLINED_MAX_NUMEL))
    if other:
        out.append(finding("error", "weights_extra", keys=other))
    if missing and not prefix:
        out.append(finding("warn", "weights_missing", missing=missing, first_constant=by_fqn[missing[0]].name))
    if not out:
        out.append(finding("info", "weights_match", tensors=len(tensors), constants=len(by_fqn), file=src))
    readings["weights_file"].update(missing=len(missing), mismatched=mismatched, extra=len(extra))
    return out


def _common_prefix(keys: set[str], fqns: set[str]) -> str:
    """A prefix every file key has and no package FQN has (DDP's ``module.``), when stripping it matches."""
    if not keys or keys & fqns:
        return ""
    first = next(iter(keys))
    for i in range(len(first), 0, -1):
        p = first[:i]
        if p.endswith(".") and all(k.startswith(p) for k in keys) and {k[len(p):] for k in keys} & fqns:
            return p
    return ""


# What `constants_storage` says, for `show`: where a model's constants are (None: the package does not say)
STORAGE = ("so", "absent", "pickle_weights", "binary_blob")


def constants_storage(pkg, name: str, count: int) -> str | None:
    """Where the ``count`` constants of model ``name`` are: compiled into the .so ("so"), not in the package at all
    ("absent": built with package_constants_in_so=False, the caller must `load_constants` them), stored beside the
    code ("pickle_weights", "binary_blob"); None when there are none or the package does not say (no .so).  The
    same reading as doctor's ``weights`` check: the .so's dynamic symbols and the zip directory, nothing read else."""
    if not count:
        return None
    files = pkg.files(name)
    if weights_blob_member(pkg, name):
        return "binary_blob"
    disk = files.folder + PICKLED_WEIGHTS_CONFIG in pkg.archive.members()
    blob = weights_blob_bytes(pkg, name) if files.shared_objects else None
    if blob is None:
        return "pickle_weights" if disk else None
    if blob > 64:
        return "so"
    return "pickle_weights" if disk else "absent"
