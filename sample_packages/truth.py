"""A manifest's truth, completed from the real run and the package: no torch, no pt2-inspect.

``expect_for`` takes a spec's ``expect`` (specs.py: what the failure must trace to, by construction)
and adds what only the build knows: the kernel the real error came from (found by the debugging
guide's own means: the ``Exception raised from <kernel>`` line on CPU, the ``assertFile`` bytes of
each cubin on CUDA), its kind, whether an extern op is called without an error check, and whether
the trigger fired at all.  ``build.py`` writes it into each manifest; ``build.py --refresh`` and
tests/samples/test_build_refresh.py recompute it from the saved error and package and must get the
checked-in manifest byte for byte.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

from specs import SPECS


def manifest_text(manifest: dict) -> str:
    """A manifest as it is written to disk."""
    return json.dumps(manifest, indent=2) + "\n"


def expect_for(name: str, dev: str, err: dict, pkg: Path) -> dict:
    """The manifest's truth: the spec's (by construction), completed from the real run and the package."""
    exp = dict(SPECS[name]["expect"])
    if isinstance(exp.get("bound_input"), tuple):
        i, d = exp["bound_input"]
        exp["bound_input"] = {"index": i, "dim": d}
    if "bound_terms" in exp:
        exp["bound_terms"] = [{"index": i, "dim": d} for i, d in exp["bound_terms"]]
    exp.setdefault("model", "model")
    exp["kernel"] = failing_kernel(err, pkg)
    op = exp.get("extern_op")
    fn = f"aoti_torch_{dev}_{op}" if op else None
    if exp["kernel"]:  # a generated kernel: pt2-inspect's words, "triton" or "cpp"
        exp["kernel_kind"] = "triton" if exp["kernel"].startswith("triton_") else "cpp"
    elif op and (_extern_failed(err["stderr"]) or _unchecked_extern(pkg, fn)):
        # The generated kernels never saw the value: the ATen op the wrapper calls failed.
        exp["kernel"] = fn
        exp["kernel_kind"] = "extern"
    else:
        exp["kernel_kind"] = None
    if op:
        # Called as a bare statement, without AOTI_TORCH_ERROR_CODE_CHECK: a failure is lost, the run goes on.
        exp["unchecked_extern"] = _unchecked_extern(pkg, fn)
    # Did the bad input make the package fail at all?  (A swallowed extern exception exits 0.)
    exp["fired"] = err["returncode"] != 0 or "Exception in aoti_torch" in err["stderr"]
    return exp


def refreshed(manifest_path: Path) -> str:
    """The manifest's text with ``expect`` recomputed from its spec, saved error and package."""
    man = json.loads(Path(manifest_path).read_text())
    pkg = Path(manifest_path).parent / f"{man['name']}.pt2"
    man["expect"] = expect_for(man["name"], man["device"], man["error"], pkg)
    return manifest_text(man)


def refresh(out_dir: Path, names=None) -> list[Path]:
    """Rewrite each manifest under ``out_dir`` whose ``expect`` no longer is what spec + error + package say."""
    changed = []
    for mf in sorted(Path(out_dir).glob("*/manifest.json")):
        name = json.loads(mf.read_text())["name"]
        if names and name not in names:
            continue
        text = refreshed(mf)
        if text != mf.read_text():
            mf.write_text(text)
            changed.append(mf)
        exp = json.loads(text)["expect"]
        print(f"{mf.parent.parent.name}/{name}: kernel={exp['kernel']}{' (rewritten)' if mf in changed else ''}")
    return changed


def _extern_failed(stderr):
    """The real log names an extern call: a CPU exception at it, an ATen kernel assert, or a swallowed one."""
    return bool(
        re.search(r"Error: aoti_torch_\w+\(.*API call failed", stderr)
        or "Exception in aoti_torch" in stderr
        or re.search(r"/ATen/native/\S+\.cu:\d+: \w+: block: \[", stderr)
    )


def _unchecked_extern(pkg: Path, fn: str) -> bool:
    """The wrapper calls ``fn`` as a bare statement, not inside AOTI_TORCH_ERROR_CODE_CHECK(...)."""
    with zipfile.ZipFile(pkg) as zf:
        for name in zf.namelist():
            if name.endswith(".cpp") and "/aotinductor/" in name:
                if re.search(r"^\s*" + fn + r"\(", zf.read(name).decode("utf-8", "replace"), re.M):
                    return True
    return False


def failing_kernel(err, pkg: Path):
    """Name the kernel the real error came from, by the debugging guide's own means.

    CPU: ``Exception raised from <kernel> at …kernel.cpp:N``.  CUDA: the ``.py``
    path of the device assert is compared with the ``assertFile`` byte array in
    each cubin; the wrapper's ``loadKernel("…/<stem>.cubin", "<kernel>", …)``
    names the kernel of that cubin.
    """
    text = err["stderr"]
    m = re.search(r"(\S+\.py):(\d+): \w+: block: \[", text)
    if not m:
        # 2.13: …/<hash>.kernel.cpp:N; 2.6: the kernels sit in …/<hash>.cpp (no ATen source file).
        m = re.search(r"Exception raised from (\w+) at \S+/(?:\w+\.kernel|[a-z0-9]{40,})\.cpp:\d+", text)
        return m.group(1) if m else None
    py = m.group(1).encode()
    with zipfile.ZipFile(pkg) as zf:
        names = zf.namelist()
        for name in names:
            if not name.endswith(".cubin"):
                continue
            data = zf.read(name)
            for arr in re.finditer(rb"assertFile_\d+\[\d+\] = \{([\d, ]+)\}", data):
                s = bytes(int(x) for x in arr.group(1).split(b",")).rstrip(b"\0")
                if s != py:
                    continue
                stem = Path(name).stem
                model_dir = name.rsplit("/", 1)[0]
                for w in names:
                    if w.startswith(model_dir) and w.endswith(".wrapper.cpp"):
                        k = re.search(r'loadKernel\("[^"]*' + stem + r'\.cubin", "(\w+)"', zf.read(w).decode())
                        if k:
                            return k.group(1)
                return stem
    return None
