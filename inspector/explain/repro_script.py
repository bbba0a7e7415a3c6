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
        elif fill == "ramp":  # rising along a dim (the last by default): argmax, top-k and sort positions are the largest
            d = spec.get("dim", len(shape) - 1) if shape else 0
            along = [1] * len(shape)
            if shape:
                along[d] = shape[d]
            t = torch.arange(shape[d] if shape else 1, dtype=torch.float64).reshape(along).expand(shape).contiguous().to(dt)
        elif fill == "max":  # the dtype's largest value everywhere: past every boundary a bucketize has
            big = torch.finfo(dt).max if (dt.is_floating_point or dt.is_complex) else torch.iinfo(dt).max
            t = torch.full(shape, big, dtype=dt)
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

def run_case(path, case, label):
    env = dict(os.environ)
    for k in case.get("unset_env", []):
        env.pop(k, None)
    env.update(case_env(case))
    t0 = time.time()
    timed_out = False
    try:
        p = subprocess.run([sys.executable, "-X", "faulthandler", os.path.abspath(__file__), path, "--child",
                            str(CASES.index(case))], env=env, capture_output=True, text=True, errors="replace",
                           timeout=case.get("timeout", 300))
        rc, text = p.returncode, (p.stdout or "") + (p.stderr or "")
    except subprocess.TimeoutExpired as e:
        timed_out, rc = True, None
        text = ((e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")) + \
               ((e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or ""))
    took = time.time() - t0
    lines = text.splitlines()
    if len(lines) > 60:  # the whole output goes to a file: a diagnosis must not read a gap as evidence
        full = os.path.splitext(os.path.abspath(__file__))[0] + label.replace(" ", "_") + ".output.log"
        with open(full, "w") as f:
            f.write(text)
        lines = lines[:30] + ["[... %d lines left out: all of them are in %s ...]" % (len(lines) - 50,
                                                                                      os.path.basename(full))] + lines[-20:]
    sys.stdout.write("\n".join(lines) + "\n")
    what = describe(rc, timed_out)
    if not timed_out and matches(case["expect"], text, rc):
        print("%s%s: %s (%s, %.1f s)" % (label, REPRODUCED, case["title"], what, took))
        return True
    print("%s%s: expected %s; the call %s%s (%.1f s)" % (label, NOT_REPRODUCED, case["expect_words"], what,
          (": " + first_error(text)) if first_error(text) else (" and returned" if DONE_MARK in text else ""), took))
    return False


def main():
    args = sys.argv[1:]
    if "--child" in args:
        run_here(args[0], CASES[int(args[args.index("--child") + 1])])
        return 0
    path = args[0] if args else DEFAULT_PACKAGE
    if not os.path.exists(path) or len(args) > 2 or (len(args) == 2 and args[1] not in NUMBERS):
        print("usage: python %s [PACKAGE.pt2] [HYPOTHESIS: one of %s]   (%s)" % (
            os.path.basename(sys.argv[0]), ", ".join(NUMBERS) or "none",
            ("no such file: %s" % path) if not os.path.exists(path) else "no such hypothesis"))
        return 2
    picked = [i for i, n in enumerate(NUMBERS) if len(args) < 2 or n == args[1]] if NUMBERS else [0]
    ok = []
    for i in picked:
        label = ("hypothesis %s: " % NUMBERS[i]) if len(CASES) > 1 else ""
        ok.append(run_case(path, CASES[i], label))
    return 0 if any(ok) else 1


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


def repro_script(case_jsons: list[str], numbers: list, package_name: str, header: str) -> str:
    """The standalone script for one case, or one per hypothesis (``numbers``: each case's hypothesis rank, None
    when it reproduces no ranked hypothesis): ``python repro.py [PKG] [N]`` runs every case, or hypothesis N's."""
    nums = [str(n) for n in numbers if n is not None] if len(case_jsons) > 1 else []
    cases = ",\n".join(case_jsons)
    return ("#!/usr/bin/env python3\n" + '"""' + header.replace('"""', "'''") + '"""\n'
            + RUNKIT + f"\nDEFAULT_PACKAGE = {package_name!r}\nNUMBERS = {nums!r}\n"
            + f"CASES = json.loads(r'''[{cases}]''')\nCASE = CASES[0]\n" + REPRO_MAIN)


def sweep_runner() -> str:
    """The per-package runner of `sweep --run` (the plan is a JSON file it reads)."""
    return '"""pt2-inspect sweep runner: one forked child per case; the plan is a JSON file."""\n' + RUNKIT + SWEEP_MAIN


def repro_header(title: str, package_name: str, loader_words: str, version: str, n_cases: int = 1) -> str:
    usage = (f"usage: python repro.py [{package_name}]\nprints '{REPRODUCED}' (exit 0) or '{NOT_REPRODUCED}' with what "
             "happened instead (exit 1).\n") if n_cases == 1 else (
             f"usage: python repro.py [{package_name}] [N]\nruns the case of every hypothesis (or of hypothesis N "
             f"only), each in a child process, and prints '{REPRODUCED}' or '{NOT_REPRODUCED}' for each (exit 0 when "
             "one reproduced).\n")
    return (f"Reproduce: {title}\n\nWritten by pt2-inspect {version} from the package alone (no data of the run that "
            f"failed).\n{loader_words}\n\n{usage}")


def all_title(n: int) -> str:
    return f"one case for each of the {n} hypotheses"


def unplanned(kind: str | None) -> str:
    """Why no case is planned for a hypothesis of cause ``kind``."""
    return {
        "bound_value": "its index is computed from the input, not read from it: no input value is known to reach "
                       "the bound",
        "static_computed_value": "its index is computed from the input: no input value is known to reach the bound",
        "position": "the length its positions run along cannot be made longer than the bound within the guards",
        "empty_input": "the bound's dims are not dynamic: they cannot be 0",
        "input_dtype": "the input is not an int64/int32 index",
    }.get(kind or "", "the package does not say which inputs would make it")


def cannot_plan(n: int, text: str, why: str | None) -> str:
    return f"hypothesis {n} ({text.split(':')[0]}): no case can be planned: {why}"


def skipped(n: int, why: str | None) -> str:
    return f"hypothesis {n} has no case: {why}"


def no_such_hypothesis(n: int, count: int) -> str:
    return f"--hypothesis {n}: the trace ranks {count} hypothes{'is' if count == 1 else 'es'} (1..{count})"


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
        along = f"dim {kw['dim']}" if kw.get("dim") is not None else "its last dim"
        return (f"input {kw['input']} rises along {along} ({kw['size']} long), so its positions reach "
                f"{kw['bound']}: {kw['expect']}")
    if kind == "past":
        return (f"input {kw['input']} holds values past every boundary, so its positions reach {kw['position']} "
                f"(the bound is {kw['bound']}): {kw['expect']}")
    if kind == "dtype":
        return (f"input {kw['input']} is {kw['dtype']} (compiled for {kw['compiled']}), its values inside the table: "
                f"{kw['expect']}")
    if kind == "given":
        return f"the given inputs: {kw['expect']}"
    return kind


NO_TORCH = ("--run needs torch in the Python that runs pt2-inspect ({python}); install it there, or run the written "
            "script with a Python that has it")


NO_CUDA = ("--run on {device} needs a GPU, and torch in this Python ({python}) sees no CUDA device: every case would "
           "fail the same way. Run the plan without --run here, or the sweep on a machine with a GPU")


def wrote(path: str, nbytes: int, package: str, cases: int = 1) -> str:
    """``package``: the package's path as the user gave it (the command works from their folder); ``cases``: how
    many hypotheses' cases the script holds (then it takes one's number)."""
    pick = f" [N]` (N: 1..{cases}; none: every case)" if cases > 1 else "`"
    return f"wrote {path} ({nbytes:,} bytes): run it with `python {path} {package}{pick}"


NOT_WRITTEN = "(no file written: -o FILE writes the script, or redirect this output into one)"


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
