"""Peak CUDA memory of real AOTI packages at several batch sizes (issue 14: doctor's memory formula).

build NAME DIR      -> DIR/NAME.pt2 (weights left out of the .so: small package), DIR/NAME.build.log
measure NAME DIR    -> DIR/NAME.measure.json: for each batch size, bytes allocated by load_constants and by
                       the run (torch.cuda.max_memory_allocated() - memory_allocated() before it), first and
                       second run, the inputs' and outputs' bytes.
"""
import json
import os
import sys
import time
import traceback

BATCHES = {"resnet18": [1, 16, 64], "bert": [1, 8, 32], "mlp": [64, 1024, 8192]}


def model(name):
    import torch
    from torch import nn
    if name == "resnet18":
        import torchvision
        m = torchvision.models.resnet18().eval()
        return m, (torch.randn(2, 3, 224, 224),)
    if name == "bert":
        from transformers import BertConfig, BertModel
        cfg = BertConfig()  # bert-base: 12 layers, hidden 768
        m = BertModel(cfg).eval()
        return m, (torch.randint(0, 1000, (2, 128)),)
    if name == "mlp":
        m = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 4096), nn.GELU(), nn.Linear(4096, 1000)).eval()
        return m, (torch.randn(2, 1024),)
    raise KeyError(name)


def inputs(name, b):
    import torch
    if name == "resnet18":
        return (torch.randn(b, 3, 224, 224, device="cuda"),)
    if name == "bert":
        return (torch.randint(0, 1000, (b, 128), device="cuda"),)
    return (torch.randn(b, 1024, device="cuda"),)


def build(name, d):
    import torch
    from torch.export import Dim
    m, ex = model(name)
    m = m.cuda()
    ex = tuple(t.cuda() for t in ex)
    dyn = ({0: Dim("batch", min=1, max=8192)},)
    t0 = time.time()
    with torch.no_grad():
        ep = torch.export.export(m, ex, dynamic_shapes=dyn, strict=False)
        torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(d, name + ".pt2"),
                                                 inductor_configs={"aot_inductor.package_constants_in_so": False})
    print("built", name, round(time.time() - t0, 1), "s", flush=True)


def measure(name, d):
    import torch
    torch.manual_seed(0)
    m, _ = model(name)
    # non-persistent buffers (BERT's position_ids, token_type_ids) are constants of the package too
    sd = {k: v.cuda() for k, v in list(m.state_dict().items()) + list(m.named_buffers())}
    res = {"model": name, "torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "runs": []}
    torch.cuda.synchronize()
    base0 = torch.cuda.memory_allocated()
    runner = torch._inductor.aoti_load_package(os.path.join(d, name + ".pt2"))
    fq = set(runner.get_constant_fqns())
    res["state_dict_bytes"] = sum(v.numel() * v.element_size() for v in sd.values())
    res["fqn_bytes"] = sum(v.numel() * v.element_size() for k, v in sd.items() if k in fq)
    torch.cuda.synchronize()
    before_load = torch.cuda.memory_allocated()
    runner.load_constants({k: v for k, v in sd.items() if k in fq}, check_full_update=True)
    torch.cuda.synchronize()
    res["load_constants_bytes"] = torch.cuda.memory_allocated() - before_load
    res["after_load_allocated"] = torch.cuda.memory_allocated() - base0
    for b in BATCHES[name]:
        for attempt in ("first", "second"):
            x = inputs(name, b)
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            before = torch.cuda.memory_allocated()
            with torch.no_grad():
                out = runner(*x)
            torch.cuda.synchronize()
            peak = torch.cuda.max_memory_allocated() - before
            flat = out if isinstance(out, (list, tuple)) else [out]
            out_bytes = sum(t.numel() * t.element_size() for t in flat if isinstance(t, torch.Tensor))
            after = torch.cuda.memory_allocated() - before
            res["runs"].append({"batch": b, "run": attempt, "peak_over_before": peak, "held_after": after,
                                "outputs_bytes": out_bytes,
                                "inputs_bytes": sum(t.numel() * t.element_size() for t in x),
                                "out_shapes": [list(t.shape) for t in flat if isinstance(t, torch.Tensor)]})
            print(name, b, attempt, peak, flush=True)
            del out, flat, x
    json.dump(res, open(os.path.join(d, name + ".measure.json"), "w"), indent=1)


if __name__ == "__main__":
    cmd, name, d = sys.argv[1:4]
    try:
        (build if cmd == "build" else measure)(name, d)
    except Exception:
        traceback.print_exc()
        sys.exit(1)
