"""scan: `doctor` over many packages (a model registry): one task per package, on a local process pool or on
a Dask distributed cluster (``scheduler="tcp://HOST:PORT"``, the ``[dask]`` extra).

`find_packages` walks the given files and folders (and URL prefixes: ``s3://bucket/models/``) for ``*.pt2``
files without following symbolic links; `scan` runs `inspector.queries.doctor.doctor` on each and yields one
`ScanRow` per package, sorted by package whatever order they finish in, so both paths give the same rows.
Each task has a time limit; a package whose job crashes its worker, a worker that dies and a task that runs
past its limit are each a row with its error (``status``), and the scan goes on: every package gets exactly
one row.  `summarize_rows` counts packages, models, findings by kind and errors.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from ..explain import scan as words

MAX_PACKAGES = 100_000
DEFAULT_TIME_LIMIT_S = 600.0
DASK_INSTALL = "pip install 'pt2-inspect[dask]'"
# status: ok / will_not_run (doctor's verdict) · not_aoti (an exported program) · unreadable · internal (a bug
# in pt2-inspect) · timeout · worker_died · cancelled (the job did not finish: the package was not checked)
JOB_ERRORS = ("timeout", "worker_died", "cancelled")


@dataclass
class ScanRow:
    package: str
    ok: bool | None  # None: the package could not be read (or was not checked: status says why)
    verdict: str
    models: list[str] = field(default_factory=list)
    findings: list[dict] = field(default_factory=list)
    error: str | None = None  # unreadable: why (exit 3's message); internal: a bug in pt2-inspect; a job's error
    internal: bool = False
    status: str = "ok"
    headline: str = ""  # doctor's first line (the verdict short); "": the verdict is short already

    def to_dict(self) -> dict:
        return {"package": self.package, "ok": self.ok, "verdict": self.verdict, "headline": self.headline or self.verdict,
                "models": self.models,
                "findings": self.findings, "error": self.error, "internal": self.internal, "status": self.status}


def find_packages(paths: list[str]) -> tuple[list[str], list[str]]:
    """(``.pt2`` files found, paths that are neither a file nor a folder); folders are walked without
    following symbolic links, and a linked ``.pt2`` is skipped.  A URL is a package, or a prefix whose
    ``.pt2`` objects are listed (fsspec)."""
    from ..remote import is_url

    found, missing = [], []
    for p in paths:
        if is_url(p):
            if p.endswith(".pt2"):
                found.append(p)
                continue
            from ..remote import list_packages

            urls, why = list_packages(p)
            found.extend(urls)
            if why:
                missing.append(why)
            continue
        path = Path(p)
        if path.is_symlink():
            missing.append(f"{p}: a symbolic link, not followed")
        elif path.is_file():
            found.append(str(path))
        elif path.is_dir():
            for root, dirs, files in os.walk(path, followlinks=False):
                dirs.sort()
                for f in sorted(files):
                    q = Path(root) / f
                    if f.endswith(".pt2") and not q.is_symlink():
                        found.append(str(q))
                        if len(found) >= MAX_PACKAGES:
                            return found, missing
        else:
            missing.append(f"{p}: no such file or folder")
    return list(dict.fromkeys(found)), missing


def _one(path: str, options: dict) -> ScanRow:
    from ..archive import Archive
    from ..errors import InspectorError
    from ..package import Package
    from ..remote import RemoteArchive, is_url
    from .doctor import doctor

    try:
        archive = RemoteArchive.open_url(path) if is_url(path) else Archive.open(Path(path))
        with archive:
            if not archive.model_files() and archive.exported_programs():
                return ScanRow(path, None, words.EXPORTED_PROGRAM, status="not_aoti")
            with Package(archive, cache=False) as pkg:
                r = doctor(pkg, **options)
        return ScanRow(path, r.ok, r.verdict(), r.models, [f.to_dict() for f in r.findings],
                       status="ok" if r.ok else "will_not_run", headline=r.headline())
    except InspectorError as e:
        return ScanRow(path, None, words.not_read(e), error=str(e), status="unreadable")
    except Exception as e:  # noqa: BLE001 - a bug in pt2-inspect: recorded for this package, the run goes on
        return ScanRow(path, None, words.INTERNAL, error=f"{type(e).__name__}: {e}"[:300], internal=True,
                       status="internal")


class _TimeLimit(BaseException):
    """Raised by the alarm inside a worker process (a BaseException: `_one`'s `except Exception` lets it by)."""


def one_limited(path: str, options: dict, limit: float | None) -> ScanRow:
    """`_one` under a time limit: an alarm in a process's main thread (the local pool's workers); a Dask
    worker runs tasks in threads, where the client enforces the limit instead (`_scan_dask`)."""
    import signal
    import threading

    if not limit or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return _one(path, options)

    def alarm(*_):
        raise _TimeLimit

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return _one(path, options)
    except _TimeLimit:
        return ScanRow(path, None, words.timed_out(limit), error=f"over the {limit:g} s limit", status="timeout")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _named(name: str, path: str, options: dict) -> ScanRow:
    """A Dask task: `_one` on ``path``, the row named ``name``."""
    row = one_limited(path, options, None)
    row.package = name
    if row.error:
        row.error = row.error.replace(path, name)
        row.verdict = row.verdict.replace(path, name)
    return row


def _died(path: str, detail: str) -> ScanRow:
    return ScanRow(path, None, words.worker_died(detail), error=detail, status="worker_died")


def _in_order(paths: list[str], results):
    """Yield rows in ``paths`` order as soon as each next one is in (``results`` yields them in any order)."""
    got: dict[str, ScanRow] = {}
    i = 0
    for row in results:
        got[row.package] = row
        while i < len(paths) and paths[i] in got:
            yield got.pop(paths[i])
            i += 1
    assert i == len(paths) and not got, "scan: a package lost or doubled"


def _scan_pool(paths: list[str], options: dict, jobs: int, limit: float | None):
    """The local process pool.  A worker that dies breaks the pool: the packages it left unfinished are run
    again one at a time in a fresh single-worker pool, so the one whose job kills its worker is found and
    becomes a row with that error, and no other package is lost or run twice to an answer."""
    if jobs == 1:
        for p in paths:
            yield one_limited(p, options, limit)
        return
    suspects: list[str] = []
    with ProcessPoolExecutor(max_workers=jobs) as ex:
        futures = {ex.submit(one_limited, p, options, limit): p for p in paths}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                try:
                    yield fut.result()
                except BrokenProcessPool:
                    suspects.append(futures[fut])
    for p in suspects:  # each alone: a break now is this package's own
        with ProcessPoolExecutor(max_workers=1) as ex:
            try:
                yield ex.submit(one_limited, p, options, limit).result()
            except BrokenProcessPool:
                yield _died(p, "its process exited while doctor read this package")


def _scan_dask(paths: list[str], options: dict, scheduler: str, limit: float | None):
    """One task per package on a Dask cluster.  The client enforces the time limit (a watchdog thread
    cancels a task seen running past it: a row); a task whose worker died (the scheduler gives up after its
    allowed failures: KilledWorker) or that failed is a row with that error."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        from ..errors import UsageError

        raise UsageError(f"scan --scheduler needs Dask distributed: {DASK_INSTALL}") from None
    import threading

    from ..errors import UnreadablePackage
    from ..remote import is_url

    try:
        client = Client(scheduler, timeout=10)
    except (OSError, TimeoutError) as e:
        raise UnreadablePackage(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({e})") from None
    stop = threading.Event()
    overdue: set[str] = set()
    try:
        # a worker has its own working folder: it gets local paths absolute (on a filesystem every worker
        # sees), and the row is named by the path as given
        futures = {client.submit(_named, p, p if is_url(p) else os.path.abspath(p), options,
                                 key=f"pt2-inspect-scan-{i}", pure=False, retries=0): p for i, p in enumerate(paths)}
        by_key = {f.key: f for f in futures}

        def watchdog():
            running_since: dict[str, float] = {}
            while not stop.wait(1.0):
                try:
                    running = {k for keys in client.processing().values() for k in keys}
                except Exception:  # noqa: BLE001 - a missed poll only delays the limit by a second
                    continue
                now = time.monotonic()
                for k in running:
                    running_since.setdefault(k, now)
                for k, t0 in list(running_since.items()):
                    fut = by_key.get(k)
                    if fut is not None and not fut.done() and now - t0 > limit:
                        overdue.add(k)
                        fut.cancel()
                        del running_since[k]

        if limit:
            threading.Thread(target=watchdog, name="pt2-inspect-scan-limit", daemon=True).start()
        for fut in as_completed(list(futures)):
            p = futures[fut]
            if fut.key in overdue:
                yield ScanRow(p, None, words.timed_out(limit), error=f"over the {limit:g} s limit", status="timeout")
            elif fut.status == "finished":
                yield fut.result()
            elif fut.status == "cancelled":
                yield ScanRow(p, None, words.cancelled("cancelled"), error="cancelled", status="cancelled")
            else:
                e = fut.exception()
                name = type(e).__name__
                e = (str(e).splitlines() or [""])[0]
                if name == "KilledWorker":
                    yield _died(p, f"{name}: the worker running it died")
                else:
                    yield ScanRow(p, None, words.cancelled(f"{name}: {e}"[:200]), error=f"{name}: {e}"[:300],
                                  status="cancelled")
    finally:
        stop.set()
        client.close()


def scan(paths: list[str], options: dict, jobs: int | None = None, scheduler: str | None = None,
         time_limit: float | None = DEFAULT_TIME_LIMIT_S):
    """Yield a `ScanRow` per package, sorted by package, from the local pool or the Dask ``scheduler``."""
    paths = sorted(dict.fromkeys(paths))
    if scheduler:
        rows = _scan_dask(paths, options, scheduler, time_limit)
    else:
        rows = _scan_pool(paths, options, max(1, min(jobs or os.cpu_count() or 1, len(paths) or 1)), time_limit)
    yield from _in_order(paths, rows)


def summarize_rows(rows: list[ScanRow]) -> dict:
    by_kind: dict[str, dict[str, int]] = {}
    for r in rows:
        for f in r.findings:
            k = by_kind.setdefault(f["kind"], {"error": 0, "warn": 0, "info": 0})
            k[f["severity"]] += 1
    return {
        "packages": len(rows),
        "models": sum(len(r.models) for r in rows),
        "will_not_run": sum(1 for r in rows if r.ok is False),
        "unreadable": sum(1 for r in rows if r.status == "unreadable"),
        "not_aoti": sum(1 for r in rows if r.status == "not_aoti"),
        "not_checked": sum(1 for r in rows if r.status in JOB_ERRORS),
        "internal_errors": sum(1 for r in rows if r.internal),
        "findings": {k: by_kind[k] for k in sorted(by_kind)},
    }
