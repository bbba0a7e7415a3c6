"""The text of the scripts `repro` writes and `sweep --run` runs, and the sentences they print.

Nothing here runs: these are strings.  ``RUNKIT`` is the part both share (build the inputs a case describes,
load the package the way it must be loaded, run the call, match the output against the expected failure);
``REPRO_MAIN`` makes it a standalone script for one case (it runs itself again as a child process, so a
crash is an answer); ``SWEEP_MAIN`` makes it the per-package runner of `sweep --run`, which imports torch
once and forks one child per case.  The case is data (JSON), so nothing of the user's run and no path of
the machine that wrote the script goes into it.
"""

from __future__ import annotations

# The words the scripts print (also read by the tests: they are the script's verdict lines).
REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
DONE_MARK = "PT2_REPRO_CALL_RETURNED"

RUNKIT = r'''
import json, os, signal, subprocess, sys, time

DONE_MARK = "PT2_REPRO_CALL_RETURNED"
REPRODUCED, NOT_REPRODUCED = "reproduced", "not reproduced"


def _dtype(torch, name):
    return getattr(torch, name)


def build_inputs(torch, case):
    """The inputs a case describes: dtype, shape, stride, device, and how to fill them."""
    gen = torch.Generator().manual_seed(0)
    out = []
    for spec in case["inputs"]:
        dt = _dtype(torch, spec["dtype"])
        shape = spec["shape"]
        numel = 1
        for d in shape:
            numel *= d
        fill = spec.get("fill", "randn")
        if fill == "randn" and (dt.is_floating_point or dt.is_complex):
            t = torch.randn(shape, generator=gen).to(dt)
        elif fill == "ramp":  # rising along the last dim: argmax, top-k and sort positions are the largest
            last = shape[-1] if shape else 1
            t = torch.arange(numel, dtype=torch.float64).remainder(max(last, 1)).reshape(shape).to(dt)
        elif fill == "range" and numel:  # index values 0..bound-1, every one of them when numel >= bound
            t = torch.arange(numel, dtype=torch.int64).remainder(max(spec["bound"], 1)).reshape(shape).to(dt)
        elif dt == torch.bool:
            t = torch.zeros(shape, dtype=dt)
        elif dt.is_floating_point:
            t = torch.randn(shape, generator=gen).to(dt)
        else:
            t = torch.zeros(shape, dtype=dt)
        flat = t.reshape(-1)
        for pos, value in spec.get("set", []):
            if numel:
                flat[pos % numel] = value
        t = flat.reshape(shape)
        if spec.get("stride") is not None:
            t = torch.empty_strided(shape, spec["stride"], dtype=dt).copy_(t)
        out.append(t.to(case["device"]))
    return out


def load(torch, path, case):
    """The package loaded the way it must be: aoti_load_package, or load_pt2 for weights stored beside the
    code, then constants from a file or random ones for a package built without them."""
    how = case["loader"]
    model = case.get("model")
    if how["kind"] == "load_pt2_disk":
        from torch.export.pt2_archive._package import load_pt2
        loaded = load_pt2(path, load_weights_from_disk=True)
        runner = loaded.aoti_runners[model or "model"]
    elif model:  # one model of several: load_package takes its name (aoti_load_package does only from torch 2.12)
        from torch._inductor.package import load_package
        runner = load_package(path, model)
    else:
        runner = torch._inductor.aoti_load_package(path)
    consts = how.get("constants")
    if consts:
        if consts.get("file"):
            weights = torch.load(consts["file"], map_location=case["device"], weights_only=True)
        else:
            gen = torch.Generator().manual_seed(0)
            weights = {c["name"]: torch.randn(c["shape"], generator=gen).to(_dtype(torch, c["dtype"])).to(case["device"])
                       for c in consts["specs"]}
        runner.load_constants(weights, check_full_update=True)
    return runner


def call(runner, inputs):
    loader = getattr(runner, "loader", None)
    if loader is not None and hasattr(loader, "run"):
        return loader.run(inputs)  # the flat inputs, as the wrapper numbers them
    return runner(*inputs)


def run_here(path, case):
    """Load, build, call, synchronize; print the mark when the call returned."""
    import torch
    torch.set_num_threads(1) if case["device"] == "cpu" else None
    runner = load(torch, path, case)
    inputs = build_inputs(torch, case)
    out = call(runner, inputs)
    if case["device"].startswith("cuda"):
        torch.cuda.synchronize()
    print(DONE_MARK, flush=True)
    return out


def case_env(case):
    env = {}
    for k, v in case.get("env", {}).items():
        env[k] = v
    return env


def matches(expect, text, rc):
    """Whether the captured output shows the expected failure, and what it shows otherwise."""
    if expect is None:
        return rc == 0 and DONE_MARK in text
    if rc == 0 and DONE_MARK in text:
        return False
    return all(s in text for s in expect.get("all_of", [])) and (
        not expect.get("any_of") or any(s in text for s in expect["any_of"]))


def first_error(text):
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith(("frame #", "Traceback", "File ", "W1", "warnings.warn", "<omitting")):
            continue
        if any(w in s for w in ("Error", "error", "Assertion", "what():", "Fatal", "failed", "Exception", "Aborted")):
            return s[:300]
    return ""


def describe(rc, timed_out):
    if timed_out:
        return "timed out"
    if rc is None:
        return "did not run"
    if rc < 0:
        try:
            return "killed by " + signal.Signals(-rc).name
        except ValueError:
            return "killed by signal %d" % -rc
    return "exit %d" % rc
'''

REPRO_MAIN = r'''

def main():
    args = [a for a in sys.argv[1:] if a != "--child"]
    path = args[0] if args else DEFAULT_PACKAGE
    if "--child" in sys.argv:
        run_here(path, CASE)
        return 0
    if not os.path.exists(path):
        print("usage: python %s [PACKAGE.pt2]   (no such file: %s)" % (os.path.basename(sys.argv[0]), path))
        return 2
    env = dict(os.environ)
    for k in CASE.get("unset_env", []):
        env.pop(k, None)
    env.update(case_env(CASE))
    t0 = time.time()
    timed_out = False
    try:
        p = subprocess.run([sys.executable, "-X", "faulthandler", os.path.abspath(__file__), path, "--child"],
                           env=env, capture_output=True, text=True, errors="replace", timeout=CASE.get("timeout", 300))
        rc, text = p.returncode, (p.stdout or "") + (p.stderr or "")
    except subprocess.TimeoutExpired as e:
        timed_out, rc = True, None
        text = ((e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")) + \
               ((e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or ""))
    took = time.time() - t0
    lines = text.splitlines()
    if len(lines) > 60:  # the whole output goes to a file: a diagnosis must not read a gap as evidence
        full = os.path.splitext(os.path.abspath(__file__))[0] + ".output.log"
        with open(full, "w") as f:
            f.write(text)
        lines = lines[:30] + ["[... %d lines left out: all of them are in %s ...]" % (len(lines) - 50,
                                                                                      os.path.basename(full))] + lines[-20:]
    sys.stdout.write("\n".join(lines) + "\n")
    what = describe(rc, timed_out)
    if not timed_out and matches(CASE["expect"], text, rc):
        print("%s: %s (%s, %.1f s)" % (REPRODUCED, CASE["title"], what, took))
        return 0
    print("%s: expected %s; the call %s%s (%.1f s)" % (NOT_REPRODUCED, CASE["expect_words"], what,
          (": " + first_error(text)) if first_error(text) else (" and returned" if DONE_MARK in text else ""), took))
    return 1


if __name__ == "__main__":
    sys.exit(main())
'''

SWEEP_MAIN = r'''

def _child(path, case, out_path):
    fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    for k in case.get("unset_env", []):
        os.environ.pop(k, None)
    os.environ.update(case_env(case))
    try:
        import faulthandler
        faulthandler.enable()
        run_here(path, case)
        code = 0
    except BaseException:
        import traceback
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main():
    if sys.argv[1] == "--case":  # one CUDA case in a fresh process
        plan_path, i, path, out_path = sys.argv[2:6]
        with open(plan_path) as f:
            case = json.load(f)["cases"][int(i)]
        _child(case.get("package") or path, case, out_path)
    plan_path, path, out_dir = sys.argv[1:4]
    with open(plan_path) as f:
        plan = json.load(f)
    forked = [c for c in plan["cases"] if not c["device"].startswith("cuda")]
    if forked:
        import torch  # once, in this parent; nothing of the package is loaded here
        try:  # the CPU ISA probe the loader runs (a second or two): once here, not in every child
            from torch._inductor.codecache import get_device_information
            get_device_information("cpu")
        except Exception:
            pass
        import torch._inductor.package  # noqa: F401
    jobs = max(1, int(plan.get("jobs", 1)))
    limit = plan.get("timeout", 60)
    running = []  # (case index, pid, start, out_path): CUDA cases run up to `jobs` at a time, CPU cases one by one

    def record(i, rc, timed_out, t0, out_path):
        with open(out_path, errors="replace") as f:
            text = f.read()
        print(json.dumps({"case": i, "rc": rc, "timed_out": timed_out, "seconds": round(time.time() - t0, 2),
                          "returned": DONE_MARK in text, "what": describe(rc, timed_out),
                          "first_error": first_error(text)}), flush=True)

    def poll(entry):
        """True when the case has ended (and is recorded): it exited, or ran past its time and was killed."""
        i, pid, t0, out_path = entry
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            record(i, os.waitstatus_to_exitcode(status), False, t0, out_path)
            return True
        if time.time() > t0 + limit:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            record(i, None, True, t0, out_path)
            return True
        return False

    def wait_below(n):
        """Wait until fewer than ``n`` cases run."""
        while len(running) >= n:
            running[:] = [e for e in running if not poll(e)]
            if len(running) >= n:
                time.sleep(0.02)

    for i, case in enumerate(plan["cases"]):
        out_path = os.path.join(out_dir, "case_%03d.log" % i)
        if case["device"].startswith("cuda"):
            # CUDA cannot be used in a child forked from a process that touched it (importing torch may):
            # each CUDA case is a fresh process, slower to start (so up to `jobs` run at once), never
            # "CUDA error: initialization error"
            wait_below(jobs)
            pid = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--case", plan_path, str(i), path,
                                    out_path]).pid
        else:
            wait_below(1)
            pid = os.fork()
            if pid == 0:
                _child(case.get("package") or path, case, out_path)
        running.append((i, pid, time.time(), out_path))
    wait_below(1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''


def repro_script(case_json: str, package_name: str, header: str) -> str:
    """The standalone script for one case."""
    return ("#!/usr/bin/env python3\n" + '"""' + header.replace('"""', "'''") + '"""\n'
            + RUNKIT + f"\nDEFAULT_PACKAGE = {package_name!r}\nCASE = json.loads(r'''{case_json}''')\n" + REPRO_MAIN)


def sweep_runner() -> str:
    """The per-package runner of `sweep --run` (the plan is a JSON file it reads)."""
    return '"""pt2-inspect sweep runner: one forked child per case; the plan is a JSON file."""\n' + RUNKIT + SWEEP_MAIN


def repro_header(title: str, package_name: str, loader_words: str, version: str) -> str:
    return (f"Reproduce: {title}\n\nWritten by pt2-inspect {version} from the package alone (no data of the run that "
            f"failed).\n{loader_words}\n\nusage: python repro.py [{package_name}]\nprints '{REPRODUCED}' (exit 0) or "
            f"'{NOT_REPRODUCED}' with what happened instead (exit 1).\n")


LOADER_WORDS = {
    "aoti_load_package": "Loads the package with torch._inductor.aoti_load_package.",
    "load_pt2_disk": "Loads the package with load_pt2(..., load_weights_from_disk=True): its weights are stored beside "
                     "the code (pickle_weights), not in the .so.",
}
RANDOM_CONSTANTS = ("The package holds no weights (package_constants_in_so=False): the script loads random constants "
                    "of the right names, shapes and dtypes (give --weights FILE for the real ones); an index assert "
                    "does not depend on them.")
FILE_CONSTANTS = "The package holds no weights: the script loads them from {file} (load_constants)."


def expect_words(kind: str, **kw) -> str:
    if kind == "assert":
        return f"`{kw['message']}` in {kw['kernel']}"
    if kind == "may_fail" and kw["kernel"].startswith("aoti_torch_"):  # check's extern op at an unvouched size
        return f"may fail: ATen's {kw['message']} ({kw['kernel']}) at a size the package was not built for"
    if kind == "may_fail":
        return f"may fail: `{kw['message']}` in {kw['kernel']} (the sizes allow it; the values decide)"
    if kind == "check_inputs":
        return f"AOTI_RUNTIME_CHECK_INPUTS to reject input {kw['input']} ({kw['what']})"
    if kind == "extern":
        return f"the ATen op {kw['op']} to fail ({kw['message']})"
    return kind


def title_words(kind: str, **kw) -> str:
    if kind == "value":
        return f"input {kw['input']} holds {kw['value']} (the bound is {kw['bound']}): {kw['expect']}"
    if kind == "empty":
        return f"input {kw['input']} dim {kw['dim']} is 0 (an empty table): {kw['expect']}"
    if kind == "ramp":
        return (f"input {kw['input']} rises along its last dim ({kw['size']} long), so its positions reach "
                f"{kw['bound']}: {kw['expect']}")
    if kind == "given":
        return f"the given inputs: {kw['expect']}"
    return kind


NO_TORCH = ("--run needs torch in the Python that runs pt2-inspect ({python}); install it there, or run the written "
            "script with a Python that has it")


NO_CUDA = ("--run on {device} needs a GPU, and torch in this Python ({python}) sees no CUDA device: every case would "
           "fail the same way. Run the plan without --run here, or the sweep on a machine with a GPU")


def wrote(path: str, nbytes: int, package_name: str) -> str:
    return f"wrote {path} ({nbytes:,} bytes): run it with `python {path} {package_name}`"


def ran(verdict: str, rc: int) -> str:
    return f"ran it (the script exited {rc}): {verdict or 'no verdict line'}"


def guard_words(i: int, kind: str, detail: str) -> str:
    """A sweep row's prediction that AOTI_RUNTIME_CHECK_INPUTS=1 rejects input ``i`` (``detail``: check's words)."""
    short = detail.split(";")[0].split(": ", 1)[-1].split(" (")[0]
    return f"input_check rejects input {i} ({kind}: {short})"


def dim_case(index: int, dim: int, symbol: str, value: int, label: str, loop_bound: int | None) -> str:
    """A sweep row that sets one input dim: ``input 0 dim 1 (s70) = 128 (max)``; ``label`` "loop-bound"/"past-loop-bound"
    names the bound of a check whose index is a loop position (an arange) over that dim."""
    where = f"input {index} dim {dim} ({symbol}) = {value}"
    if label in ("min", "max"):
        return f"{where} ({label})"
    if "loop" in label:
        return f"{where} (a loop position (an arange) over it is checked against {loop_bound})"
    return where


def value_case(index: int, value: int, label: str, bound: int) -> str:
    """A sweep row that puts one value into an index input: ``input 1 holds -5 (below-N; the bound is 4)``."""
    return f"input {index} holds {value} ({label}; the bound is {bound})"


def wrap_row_note(wraps: bool | None) -> str | None:
    """The -1 row's note: whether the kernel wraps negative indices (None: not known)."""
    if wraps:
        return "the kernel wraps negative indices (x < 0 ? x + N : x): -1 reads row N-1"
    if wraps is False:
        return "the kernel does not wrap negative indices: -1 fails its check"
    return None


ONLY_DIMS_SWEPT = "no range assertion in the package's kernels: only the dims are swept"
