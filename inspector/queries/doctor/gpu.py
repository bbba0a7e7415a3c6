"""``gpu_arch``: the SM target of every kernel image (ELF header, fatbin table) against the GPU it will run on;
Triton's cubins carry no PTX, so nothing can JIT them for another GPU.  ``device_index``: which GPU index the
model can be loaded on."""

from __future__ import annotations

import inspector.host as host

from ...errors import UsageError
from ...explain import doctor as say
from ...parse.specs import device_type
from ...parse.wrapper_text import device_index_use
from ..kernel_binaries import kernel_images
from .base import Check, Here, Subject


def parse_gpu(gpu: str) -> int:
    """``sm_80`` / ``sm80`` / ``8.0`` / ``80`` -> 80; a UsageError otherwise."""
    sm = host.gpu_sm(gpu)
    if sm is None:
        raise UsageError(say.bad_gpu(gpu))
    return sm


class GpuArch(Check):
    name = "gpu_arch"

    def run(self, m: Subject, here: Here):
        images = kernel_images(m.pkg, m.files, m.wrapper)
        if not images:
            if here.gpu and m.device == "cpu":
                return [m.finding("gpu_arch", "info", "gpu_cpu_model", wrapper=m.files.wrapper or "")]
            return []
        readable = [i for i in images if i.error is None]
        unreadable = [i for i in images if i.error is not None]
        sms: dict[int, list[str]] = {}
        for i in readable:
            for s in i.sass:
                sms.setdefault(s, []).append(i.source)
        ptx = sorted({p for i in readable for p in i.ptx})
        specific = any(i.arch_specific for i in readable)
        forms: dict[str, int] = {}
        for i in images:
            forms[i.form] = forms.get(i.form, 0) + 1
        m.readings["cubin_sm"] = sorted(sms)
        if set(forms) != {"cubin"}:
            m.readings["kernel_images"] = {"forms": forms, "sass_sm": sorted(sms), "ptx_sm": ptx,
                                           "arch_specific": specific}
        out = []
        if unreadable:
            out.append(m.finding("gpu_arch", "warn", "gpu_unreadable",
                                 errors=[(i.source, i.error) for i in unreadable]))
        if not readable:
            return out
        about = dict(forms=forms, sass_sm=sorted(sms), ptx_sm=ptx, arch_specific=specific, gpu_arg=here.gpu,
                     gpu_sm=here.gpu_sm, sources=[i.source for i in readable[:2]])
        gpu = here.gpu_sm
        if not ptx:  # SASS only: cubins, or images embedded in the .so
            if here.gpu and gpu is None:
                out.append(m.finding("gpu_arch", "info", "gpu_not_found", **about))
            elif here.gpu:
                bad = [s for s in sms if not any(i.runs_on(gpu) for i in readable if s in i.sass)]
                if bad:
                    out.append(m.finding("gpu_arch", "error", "gpu_wrong_arch", **about, bad_sm=sorted(bad),
                                         bad_images=sum(len(sms[s]) for s in bad),
                                         bad_sources=[sms[s][0] for s in sorted(bad)]))
                else:
                    out.append(m.finding("gpu_arch", "info", "gpu_runs", **about))
            else:
                out.append(m.finding("gpu_arch", "info", "gpu_sass_only", **about))
            return out
        # SASS and PTX (fatbins, emit_multi_arch_kernel): say which GPUs run what
        if here.gpu and gpu is not None:
            how = [i.runs_on(gpu) for i in readable]
            if None in how:
                out.append(m.finding("gpu_arch", "error", "gpu_none_usable", **about, unusable=how.count(None),
                                     readable=len(readable)))
            elif "ptx" in how:
                out.append(m.finding("gpu_arch", "info", "gpu_ptx_jit", **about, jit=how.count("ptx")))
            else:
                out.append(m.finding("gpu_arch", "info", "gpu_sass_runs", **about))
            return out
        out.append(m.finding("gpu_arch", "info", "gpu_multi_arch", **about))
        return out


class DeviceIndex(Check):
    """Which GPU index the model can be loaded on: its wrapper allocates and launches on the runner's own index
    (``this->device_idx_``), so any index of its device type, chosen with ``device_index``; a device string with
    a fixed index in the wrapper pins it."""

    name = "device_index"

    def run(self, m: Subject, here: Here):
        dev = device_type(m.device)
        if dev not in ("cuda", "xpu") or not m.wrapper:
            return []
        use = device_index_use(m.wrapper)
        m.readings["device_index"] = {"runner_index_uses": len(use.runner_lines), "fixed": list(use.fixed)}
        return [m.finding("device_index", "warn" if use.fixed else "info", "device_index", device=dev,
                          runner_lines=list(use.runner_lines), fixed=list(use.fixed), wrapper=m.files.wrapper)]
