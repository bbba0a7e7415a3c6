"""neg_vec: negative indices reaching *vectorized* CPU kernels (torch 2.13), the forms the wrap matcher must read
(inspector/queries/wraps.py).  Four index ops in one model, each index long enough for the 16-lane loop:
``x.index_select(1, cols)`` and ``v[vidx]`` load their index as a vector and wrap negatives with
``decltype(tmp4)::blendv(tmp0, tmp4, tmp7.template cast<int64_t,2>())`` (a cast mask,
``tmp7 = at::vec::VecMask<int64_t,2>(tmp0 < tmp6)``); ``torch.gather(x, 1, g)`` and the embedding check the raw
value.  Each case runs in its own process (its stderr in logs/, with logs/index.json); what each real run did is
what trace and the sweep plan must say.

Run: OMP_NUM_THREADS=1 python sample_packages/cpu/neg_vec/build.py
(ATEN_CPU_CAPABILITY=avx2 and inductor_configs={"cpp.march": ""}: the vector ISA is capped at AVX2 and no
-march=native is passed, so the package runs on any AVX2 host; the stored package leaves its wrapper.so out:
nothing that reads the package needs it, the runs used it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
S = HERE.parent.parent

BUILD = r'''
import sys, torch, torch.nn as nn
from torch.export import Dim, export

class NegVec(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)

    def forward(self, x, cols, g, v, vidx, ids):
        return x.index_select(1, cols) * 2.0, torch.gather(x, 1, g) + 1.0, v[vidx] * 3.0, self.emb(ids) + 1.0

torch.manual_seed(0)
args = (torch.randn(8, 24), torch.arange(20) % 24, torch.randint(0, 24, (8, 20)), torch.randn(40),
        torch.arange(20) % 40, torch.arange(20) % 50)
rows, c = Dim("rows", min=2, max=4096), Dim("c", min=2, max=4096)
dims = ({0: rows, 1: c}, {0: Dim("m", min=2, max=4096)}, {0: rows, 1: Dim("k", min=2, max=4096)},
        {0: Dim("n", min=2, max=4096)}, {0: Dim("p", min=2, max=4096)}, {0: Dim("q", min=2, max=4096)})
ep = export(NegVec().eval(), args, dynamic_shapes=dims)
torch._inductor.aoti_compile_and_package(ep, package_path=sys.argv[1], inductor_configs={"cpp.march": ""})
'''

PRELUDE = ("import sys, torch\nfrom torch._inductor.package import load_package\ntorch.manual_seed(0)\n"
           "m = load_package({pkg!r})\nx = torch.randn(8, 24)\nv = torch.randn(40)\n"
           "cols = torch.arange(20) % 24\ng = torch.randint(0, 24, (8, 20))\nvidx = torch.arange(20) % 40\n"
           "ids = torch.arange(20) % 50\n"
           "def eager(f):\n    try:\n        return f()\n    except Exception as e:\n        return type(e).__name__\n")
# (kind, body, what): each body is real user code run against the built package; -1 sits in the first 16
# positions, which the vectorized loop (not its tail) reads
CASES = [
    ("index_select_minus_one",
     "cols[1], cols[5] = -1, -24\na, *_ = m(x, cols, g, v, vidx, ids)\n"
     "print('aoti: no error; columns read equal x[:, cols % 24]:', torch.equal(a, x[:, cols % 24] * 2.0), "
     "file=sys.stderr)\nr = eager(lambda: x.index_select(1, cols))\n"
     "print('eager index_select:', r if isinstance(r, str) else 'no error', file=sys.stderr)",
     "cols hold -1 and -24 (x has 24 columns): the vectorized index_select kernel wraps them (blendv with a cast "
     "mask) to columns 23 and 0, with no error"),
    ("index_select_below_n",
     "cols[1] = -25\nm(x, cols, g, v, vidx, ids)",
     "cols hold -25, below -24: the only kind of negative value the wrapping kernel's check rejects"),
    ("vindex_minus_one",
     "vidx[2], vidx[7] = -1, -40\n_, _, c, _ = m(x, cols, g, v, vidx, ids)\n"
     "print('aoti: no error; v[vidx] equals eager v[vidx]:', torch.equal(c, v[vidx] * 3.0), file=sys.stderr)",
     "vidx holds -1 and -40 (v has 40 elements): the vectorized v[vidx] kernel wraps them as eager v[vidx] does"),
    ("vindex_below_n",
     "vidx[2] = -41\nm(x, cols, g, v, vidx, ids)",
     "vidx holds -41, below -40: the wrapping kernel's check rejects it"),
    ("gather_minus_one",
     "g[0, 3] = -1\nr = eager(lambda: torch.gather(x, 1, g))\n"
     "print('eager gather:', r if isinstance(r, str) else 'no error', file=sys.stderr)\nm(x, cols, g, v, vidx, ids)",
     "g holds -1: the gather kernel does not wrap negatives (eager gather rejects them too), so -1 fails its check"),
    ("embedding_minus_one",
     "ids[4] = -1\nm(x, cols, g, v, vidx, ids)",
     "ids hold -1: the embedding's kernel does not wrap negatives, so -1 fails its check"),
    ("in_range",
     "out = m(x, cols, g, v, vidx, ids)\nprint('aoti: no error', [tuple(o.shape) for o in out], file=sys.stderr)",
     "every index in range: the control case"),
]


def trim(text: str) -> str:
    """The real text, C++ frame lists cut to their first 4 and last frame (as sample_packages/make_logs.py)."""
    sys.path.insert(0, str(S))
    from make_logs import trim as _trim

    return _trim(text)


def main() -> None:
    env = dict(os.environ, OMP_NUM_THREADS="1", ATEN_CPU_CAPABILITY="avx2", PYTHONUNBUFFERED="1")
    env.pop("AOTI_RUNTIME_CHECK_INPUTS", None)
    keep = os.environ.get("NEG_VEC_KEEP")  # a folder to keep the built package (with its .so) in, for reruns
    with tempfile.TemporaryDirectory() as tmp:
        built = Path(keep or tmp) / "neg_vec.pt2"
        if not built.exists():
            subprocess.run([sys.executable, "-c", BUILD, str(built)], check=True, env=env)
        logs = HERE / "logs"
        logs.mkdir(exist_ok=True)
        index = {}
        for kind, body, what in CASES:
            p = subprocess.run([sys.executable, "-X", "faulthandler", "-c", PRELUDE.format(pkg=str(built)) + body],
                               capture_output=True, text=True, env=env, timeout=600)
            (logs / f"{kind}.log").write_text(trim(p.stderr))
            index[kind] = {"env": {"OMP_NUM_THREADS": "1"}, "code": body, "mode": "plain",
                           "package": "cpu/neg_vec/package/neg_vec.pt2", "returncode": p.returncode,
                           "scenario": kind, "what": what,
                           "made_by": "sample_packages/cpu/neg_vec/build.py (torch 2.13.0+cpu, OMP_NUM_THREADS=1, "
                                      "python -X faulthandler)"}
            print(kind, "rc", p.returncode, flush=True)
        (logs / "index.json").write_text(json.dumps(index, indent=2) + "\n")
        out = HERE / "package" / "neg_vec.pt2"
        out.parent.mkdir(exist_ok=True)
        left_out = []
        with zipfile.ZipFile(built) as zi, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zo:
            for i in zi.infolist():
                if i.filename.endswith(".so"):
                    left_out.append(i.filename.rsplit("/", 1)[-1])
                    continue
                zo.writestr(i.filename, zi.read(i.filename), zipfile.ZIP_DEFLATED)
        (HERE / "package" / "left_out.json").write_text(json.dumps(
            {"left_out": left_out, "left_out_why": "the compiled wrapper is not stored: nothing that reads the "
             "package needs it; the runs in logs/ used it"}, indent=2) + "\n")


if __name__ == "__main__":
    main()
