"""neg_index: `x[idx]` (aten.index) and an embedding in one model, built portably (issue 20 (c): negative
indices).  The index kernel wraps negatives as Python indexing does (`tmp < 0 ? tmp + N : tmp`): -1..-N read rows
counted from the end with no error, and only values below -N fail its check; the embedding's kernel does not
wrap: -1 fails at once.  Each case runs in its own process; its stderr is kept in logs/ with logs/index.json.

Run: OMP_NUM_THREADS=1 python sample_packages/cpu/neg_index/build.py
(the vector ISA is capped at AVX2 and no -march=native is passed, so the package runs on any AVX2 host; the
stored package leaves its wrapper.so out: nothing that reads the package needs it, the runs used it)."""

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

class NegIndex(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 4)

    def forward(self, x, idx, ids):
        return x[idx] * 2.0, self.emb(ids) + 1.0

torch.manual_seed(0)
args = (torch.randn(16, 4), torch.tensor([0, 3, 5]), torch.tensor([1, 2, 3]))
dims = ({0: Dim("rows", min=2, max=4096)}, {0: Dim("n", min=2, max=4096)}, {0: Dim("k", min=2, max=4096)})
ep = export(NegIndex().eval(), args, dynamic_shapes=dims)
torch._inductor.aoti_compile_and_package(ep, package_path=sys.argv[1], inductor_configs={"cpp.march": ""})
'''

PRELUDE = ("import sys, torch\nfrom torch._inductor.package import load_package\ntorch.manual_seed(0)\n"
           "m = load_package({pkg!r})\nx = torch.randn(16, 4)\n")
# (kind, body, what) — each body is real user code run against the built package
CASES = [
    ("neg_index_minus_one_wraps",
     "out, _ = m(x, torch.tensor([0, -1, 3, -16]), torch.tensor([1, 2, 3]))\n"
     "print('aoti: no error; x[idx] rows equal x[[0, 15, 3, 0]]:', torch.equal(out, x[[0, 15, 3, 0]] * 2.0), "
     "file=sys.stderr)\n"
     "print('eager x[idx] agrees:', torch.equal(out, x[torch.tensor([0, -1, 3, -16])] * 2.0), file=sys.stderr)",
     "idx holds -1 and -16 (x has 16 rows): the index kernel wraps them to rows 15 and 0, as eager x[idx] does"),
    ("neg_index_below_n",
     "m(x, torch.tensor([0, -17, 3]), torch.tensor([1, 2, 3]))",
     "idx holds -17, below -16: the only kind of negative value the wrapping index kernel's check rejects"),
    ("neg_embedding_minus_one",
     "m(x, torch.tensor([0, 1, 3]), torch.tensor([1, -1, 3]))",
     "ids hold -1: the embedding's kernel does not wrap negatives, so -1 fails its check"),
    ("neg_index_in_range",
     "out, e = m(x, torch.tensor([0, 15, 3]), torch.tensor([1, 49, 3]))\n"
     "print('aoti: no error', tuple(out.shape), tuple(e.shape), file=sys.stderr)",
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
    with tempfile.TemporaryDirectory() as tmp:
        built = Path(tmp) / "neg_index.pt2"
        subprocess.run([sys.executable, "-c", BUILD, str(built)], check=True, env=env)
        logs = HERE / "logs"
        logs.mkdir(exist_ok=True)
        index = {}
        for kind, body, what in CASES:
            p = subprocess.run([sys.executable, "-X", "faulthandler", "-c", PRELUDE.format(pkg=str(built)) + body],
                               capture_output=True, text=True, env=env, timeout=600)
            (logs / f"{kind}.log").write_text(trim(p.stderr))
            index[kind] = {"env": {"OMP_NUM_THREADS": "1"}, "code": body, "mode": "plain",
                           "package": "cpu/neg_index/package/neg_index.pt2", "returncode": p.returncode,
                           "scenario": kind, "what": what,
                           "made_by": "sample_packages/cpu/neg_index/build.py (torch 2.13.0+cpu, OMP_NUM_THREADS=1, "
                                      "python -X faulthandler)"}
            print(kind, "rc", p.returncode)
        (logs / "index.json").write_text(json.dumps(index, indent=2) + "\n")
        out = HERE / "package" / "neg_index.pt2"
        out.parent.mkdir(exist_ok=True)
        left_out = []
        with zipfile.ZipFile(built) as zi, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zo:
            for i in zi.infolist():
                if i.filename.endswith(".so"):
                    left_out.append(i.filename.rsplit("/", 1)[-1])
                    continue
                zo.writestr(i.filename, zi.read(i.filename), zipfile.ZIP_DEFLATED)
        (HERE / "package" / "left_out.json").write_text(json.dumps(
            {"left_out": left_out, "left_out_why": "the compiled wrapper (~1.5 MB) is not stored: nothing that reads "
             "the package needs it; the runs in logs/ used it"}, indent=2) + "\n")


if __name__ == "__main__":
    main()
