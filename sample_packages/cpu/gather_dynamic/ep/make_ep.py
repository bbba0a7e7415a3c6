"""Write gather_dynamic_ep.pt2: the same GatherModel exported and saved with torch.export.save (no AOTI),
for tests of `--ep FILE`.  Run: python sample_packages/cpu/gather_dynamic/ep/make_ep.py (kept one folder deeper: it is not an AOTI package)"""

from pathlib import Path

import torch
from torch import nn


class GatherModel(nn.Module):
    def forward(self, x, idx):
        return torch.gather(x, 1, idx) * 2.0 + 1.0


batch = torch.export.Dim("batch", min=1, max=64)
dims = ({0: batch, 1: torch.export.Dim("cols", min=2, max=4096)}, {0: batch, 1: torch.export.Dim("k", min=1, max=512)})
ep = torch.export.export(GatherModel(), (torch.randn(4, 32), torch.zeros(4, 8, dtype=torch.long)), dynamic_shapes=dims)
torch.export.save(ep, str(Path(__file__).with_name("gather_dynamic_ep.pt2")))
print("ok")
