"""The weights: load_constants refused the map (``constants``), or a package built without its weights crashed
because they were never loaded (``weights_not_loaded``)."""

from __future__ import annotations

from ....explain import diagnose as say
from ....explain import headline
from ..results import Diagnosis, step
from .base import Observations, Rule, _ev


# Tensors Inductor folds into kernel code when they are 0-d or at most 8 elements (a head's bias, a
# BatchNorm's num_batches_tracked): a key ending so, of a module whose other tensors are constants, was one.
INLINED_LEAVES = ("bias", "num_batches_tracked")


class Constants(Rule):
    """load_constants / update_constant_buffer refused the map."""

    category = "constants"

    def claims(self, obs: Observations) -> bool:
        return obs.rep.has("constant_not_found", "constants_map_missing", "constant_device", "weights_corrupt",
                         "constant_not_provided")

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        rep = obs.rep
        evs = [e for e in rep.events if e.category == "constants"]
        d.evidence = _ev(evs, 3)
        m = obs.models[0]
        consts = obs.pkg.index(m.name).constants()
        by_fqn = {c.fqn or c.name: c for c in consts}
        by_name = {c.name: c for c in consts}
        e = evs[0]
        if e.pattern == "constant_not_found":
            key = e.fqn
            owner = key.rsplit(".", 1)[0] if "." in key else ""
            if "." in key and key.split(".", 1)[1] in by_fqn:
                why = say.WHY_PREFIX
            elif key.rsplit(".", 1)[-1] in INLINED_LEAVES and any(c.startswith(owner + ".") for c in by_fqn):
                why = say.WHY_INLINED  # a module whose other tensors are constants: its small bias was folded
            else:
                why = say.WHY_UNKNOWN
            d.verdict = say.constant_not_found_verdict(key, why)
        elif e.pattern == "constants_map_missing":
            name = e.name
            c = by_name.get(name)
            d.verdict = say.constant_missing_verdict(name, c.fqn if c else None)
        elif e.pattern == "constant_not_provided":
            names = list(dict.fromkeys(x.name for x in evs if x.pattern == "constant_not_provided"))
            fqns = [by_name[n].fqn if n in by_name and by_name[n].fqn else n for n in names]
            kinds = {by_name[n].kind for n in names if n in by_name}
            d.verdict = say.constants_not_provided_verdict(names, fqns, "Buffer" in kinds,
                                                           obs.rep.has("illegal_memory_access", "segfault", "cublas_error"))
        elif e.pattern == "constant_device":
            d.verdict = say.constant_device_verdict(e.name, e.got, e.expected)
        else:
            d.verdict = say.CONSTANTS_CORRUPT
        d.steps = [step(say.CONSTANTS_DOCTOR)]


class WeightsNotLoaded(Rule):
    """A crash while running a package built without its weights (a segfault on CPU, an illegal memory access on
    CUDA): load_constants was never called."""

    category = "weights_not_loaded"
    by_package = True

    def claims(self, obs: Observations) -> bool:
        crashed = (obs.rep.has("segfault") and not obs.crashed_at_load) or obs.rep.has("illegal_memory_access")
        return crashed and bool(obs.weightless)

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        from ...doctor import weights_blob_member, weights_on_disk

        d.evidence = _ev([e for e in obs.rep.events if e.pattern in ("segfault", "illegal_memory_access")], 2)
        name, n, nbytes = obs.weightless[0]
        blob = weights_blob_member(obs.pkg, name)
        if blob:  # binary_blob: aoti_load_package loads the blob itself; a crash means the .so was loaded without it
            d.verdict = say.weights_blob_not_loaded_verdict(n, nbytes, blob[0].rsplit("/", 1)[-1], blob[1])
            d.headline = headline.weights_not_loaded(n, "blob")
            d.steps = [step(say.WEIGHTS_BLOB_STEP), step(say.WEIGHTS_LOAD_STEP)]
            return
        disk = weights_on_disk(obs.pkg, name)
        if disk:  # pickle_weights: the package carries them; only the loader that reads them loads them
            _, pickled, disk_bytes = disk
            d.verdict = say.weights_beside_not_loaded_verdict(n, nbytes, len(pickled), disk_bytes, name)
            d.headline = headline.weights_not_loaded(n, "beside")
            d.steps = [step(say.weights_from_disk_step(name)), step(say.WEIGHTS_LOAD_STEP)]
            return
        d.verdict = say.weights_not_loaded_verdict(n, nbytes)
        d.headline = headline.weights_not_loaded(n)
        d.steps = [step(say.WEIGHTS_LOAD_STEP)]
