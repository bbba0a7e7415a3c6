"""Issue 35 §6: the call `doctor` gives for a package built without its weights, checked on torch 2.13 (CPU, this
machine): build one with package_constants_in_so=False and a non-persistent buffer, then load it as doctor says.

    OMP_NUM_THREADS=1 .venv/bin/python sample_packages/harvest/issue15_cpu213/weightless_cpu/check_load_constants.py

What it printed is load_constants.txt beside it: the FQNs, the outputs equal to eager's, and state_dict() alone
accepted with only a warning for the non-persistent buffer (left without values): doctor names named_buffers()."""
import os
import tempfile

os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")  # portable: as sample_packages/build.py does
os.environ.setdefault("TORCHINDUCTOR_CPP_MARCH", "")
import torch  # noqa: E402


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 16)
        self.register_buffer("scale", torch.full((16,), 2.0), persistent=False)

    def forward(self, x):
        return self.lin(x) * self.scale


m = M().eval()
x = torch.randn(4, 16)
ep = torch.export.export(m, (x,))
path = torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(tempfile.mkdtemp(), "weightless.pt2"),
                                                inductor_configs={"aot_inductor.package_constants_in_so": False})
c = torch._inductor.aoti_load_package(path)
print("fqns", c.get_constant_fqns())
c.load_constants({**m.state_dict(), **dict(m.named_buffers())}, check_full_update=True)  # doctor's call
print("ok", torch.allclose(c(x), m(x)))
c2 = torch._inductor.aoti_load_package(path)
try:
    c2.load_constants(m.state_dict(), check_full_update=True)
    print("state_dict alone: loaded")
except Exception as e:  # noqa: BLE001
    print("state_dict alone:", str(e).splitlines()[0][:200])
