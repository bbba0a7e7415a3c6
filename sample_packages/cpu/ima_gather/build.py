"""ima_gather: torch.gather along a dynamic dim, compiled without Inductor's index asserts
(assert_indirect_indexing=False): the table is an input, so an empty `x` leaves every read out of bounds.
Run: OMP_NUM_THREADS=1 python sample_packages/cpu/ima_gather/build.py sample_packages/cpu/ima_gather/package"""

import sys
from pathlib import Path

import torch
from torch import nn

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)


class GatherModel(nn.Module):
    def forward(self, x, idx):
        return torch.gather(x, 1, idx) * 2.0 + 1.0


batch = torch.export.Dim("batch", min=1, max=64)
dims = ({0: batch, 1: torch.export.Dim("cols", min=2, max=4096)}, {0: batch, 1: torch.export.Dim("k", min=1, max=512)})
ep = torch.export.export(GatherModel(), (torch.randn(4, 32), torch.zeros(4, 8, dtype=torch.long)), dynamic_shapes=dims)
torch._inductor.aoti_compile_and_package(ep, package_path=str(out / "ima_gather.pt2"),
                                         inductor_configs={"assert_indirect_indexing": False})
print("ok")
