"""What common public ops require of their arguments' values and shapes: facts no package shows (the op's code is
not in it), read from the ops' own schemas and kernels.  One table, `CONTRACTS`, keyed by the op as a package names
it: a proxy-executor call's target in ``<hash>.wrapper.json`` (``torchvision::roi_align``) or an extern call's ATen op
(``aoti_torch_cpu_index_select`` -> ``index_select``).

Sources (read for this table):
- torchvision 0.29: ``torchvision/csrc/ops/roi_align.cpp`` (the schema), ``csrc/ops/cpu/roi_align_kernel.cpp``
  (``TORCH_CHECK(rois.size(1) == 5, "rois must have shape as Tensor[K, 5]")``; ``roi_batch_ind = offset_rois[0]`` and
  ``input + (roi_batch_ind * channels + c) * height * width`` with no bound on it), ``csrc/ops/cpu/nms_kernel.cpp``
  (``dets.dim() == 2``, ``dets.size(1) == 4``, ``scores.dim() == 1``, ``dets.size(0) == scores.size(0)``, all
  TORCH_CHECKs that raise), ``torchvision/ops/boxes.py`` (``batched_nms``: boxes ``[N, 4]`` as (x1, y1, x2, y2),
  scores ``[N]``, idxs ``[N]``; it offsets each class's boxes by ``idxs * (boxes.max() + 1)`` and calls nms, so in a
  package it is an nms whose boxes were computed from idxs), ``torchvision/ops/roi_align.py`` / ``roi_pool.py``.
- Seen for real here (torch 2.14.1 CPU, `sample_packages/harvest/contracts_cpu214/roi_head`): a roi whose batch index is
  the image count returns a wrong score silently (rc 0, `AOTI_RUNTIME_CHECK_INPUTS=1` too); 1e6 dies of SIGSEGV.
- ATen (``aten/src/ATen/native``): embedding, index_select, gather, scatter*, index_put, take, index_add/copy and
  embedding_bag check their indices and raise on CPU (``index out of range in self``, ``index 20 is out of bounds
  for dimension 0 with size 16``); on CUDA a device-side assert (asynchronous).

``checked_by``: who stops a broken contract at run time: "op" (the op raises a clear error), "nothing" (no check: the
op reads outside its tensor, wrong values or a crash), "device_assert" (CUDA: a device-side assert, asynchronous).
The input guards (``AOTI_RUNTIME_CHECK_INPUTS``) check none of these: they compare sizes with the export's ranges.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ArgContract:
    """One requirement on an argument: ``arg`` the schema's name, ``kind`` "shape" | "value", ``condition`` the
    requirement as code over the schema's names (``0 <= rois[:, 0] < input.size(0)``), ``checked_by`` on CPU and on
    CUDA (see the module), ``effect`` what a run that breaks it does, as a code: "raises", "wrong_or_crash"
    (reads outside a tensor: wrong values silently or a crash), "wrong" (silently wrong results)."""

    arg: str
    kind: str
    condition: str
    checked_by_cpu: str
    checked_by_cuda: str
    effect_cpu: str
    effect_cuda: str
    against: str | None = None  # the other argument the condition compares with (``input`` for rois' batch index)


@dataclass(frozen=True)
class OpContract:
    op: str  # as the package names it: "torchvision::roi_align", "index_select"
    schema: str  # the argument names in order (a proxy call's JSON names them too; an extern call only by position)
    contracts: tuple[ArgContract, ...]
    source: str  # where the fact was read
    # positions (in the schema, self first) of (the indexed tensor, the index) for an indexing ATen op; an extern
    # `_out` call passes its out tensor first (`inspector.queries.match.index_args` shifts by one)
    index_args: tuple[int, int] | None = None

    @property
    def arguments(self) -> tuple[tuple[str, str], ...]:
        """(type, name) of each argument in the schema, in order (``*`` dropped): ``("Tensor", "rois")``."""
        inner = self.schema[self.schema.index("(") + 1:].split(") ->")[0]
        out = []
        for p in (x.strip() for x in inner.split(",")):
            if p and p != "*":
                typ, _, name = p.split("=")[0].rpartition(" ")
                out.append((typ.strip(), name.strip()))
        return tuple(out)

    @property
    def arg_names(self) -> tuple[str, ...]:
        return tuple(n for _, n in self.arguments)


def _rois(op: str, schema: str, source: str) -> OpContract:
    return OpContract(op, schema, (
        ArgContract("rois", "shape", "rois.shape == [K, 5]: (batch index, x1, y1, x2, y2)", "op", "op", "raises", "raises"),
        ArgContract("rois", "value", "0 <= rois[:, 0] < input.size(0)", "nothing", "nothing", "wrong_or_crash",
                    "illegal_memory_access", against="input"),
        ArgContract("rois", "value", "rois[:, 1] <= rois[:, 3] and rois[:, 2] <= rois[:, 4] (x1 <= x2, y1 <= y2)",
                    "nothing", "nothing", "wrong", "wrong"),
    ), source)


def _index(op: str, schema: str, table: str, index: str, dim: str | None, positions: tuple[int, int],
           note: str = "") -> OpContract:
    size = f"{table}.size({dim})" if dim else f"{table}.size(0)" if op != "take" else f"{table}.numel()"
    return OpContract(op, schema, (
        ArgContract(index, "value", f"0 <= {index} < {size}{note}", "op", "device_assert", "raises", "device_assert",
                    against=table),
    ), "ATen (aten/src/ATen/native): the op checks its indices", positions)


CONTRACTS: dict[str, OpContract] = {c.op: c for c in (
    _rois("torchvision::roi_align",
          "roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, "
          "int sampling_ratio, bool aligned) -> Tensor",
          "torchvision/csrc/ops/cpu/roi_align_kernel.cpp, csrc/ops/cuda/roi_align_kernel.cu"),
    _rois("torchvision::roi_pool",
          "roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width) "
          "-> (Tensor, Tensor)", "torchvision/csrc/ops/cpu/roi_pool_kernel.cpp"),
    _rois("torchvision::ps_roi_align",
          "ps_roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, "
          "int sampling_ratio) -> (Tensor, Tensor)", "torchvision/csrc/ops/cpu/ps_roi_align_kernel.cpp"),
    _rois("torchvision::ps_roi_pool",
          "ps_roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width) "
          "-> (Tensor, Tensor)", "torchvision/csrc/ops/cpu/ps_roi_pool_kernel.cpp"),
    OpContract("torchvision::nms", "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor", (
        ArgContract("dets", "shape", "dets.shape == [N, 4]: (x1, y1, x2, y2)", "op", "op", "raises", "raises"),
        ArgContract("scores", "shape", "scores.shape == [N], N == dets.size(0)", "op", "op", "raises", "raises",
                    against="dets"),
        ArgContract("dets", "value", "x1 <= x2 and y1 <= y2 in every box (batched_nms: idxs [N], one per box)",
                    "nothing", "nothing", "wrong", "wrong"),
    ), "torchvision/csrc/ops/cpu/nms_kernel.cpp; torchvision/ops/boxes.py (batched_nms calls nms)"),
    _index("embedding", "embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, "
           "bool sparse=False) -> Tensor", "weight", "indices", None, (0, 1)),
    _index("_embedding_bag", "_embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, "
           "int mode=0, bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False, "
           "int padding_idx=-1) -> (Tensor, Tensor, Tensor, Tensor)", "weight", "indices", None, (0, 1)),
    _index("embedding_bag", "embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, "
           "int mode=0, bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False) -> (Tensor, "
           "Tensor, Tensor, Tensor)", "weight", "indices", None, (0, 1)),
    _index("index_select", "index_select(Tensor self, int dim, Tensor index) -> Tensor", "self", "index", "dim", (0, 2)),
    _index("gather", "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor", "self", "index",
           "dim", (0, 2)),
    _index("scatter", "scatter(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", "self", "index", "dim", (0, 2)),
    _index("scatter_add", "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", "self", "index",
           "dim", (0, 2)),
    _index("scatter_reduce", "scatter_reduce(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor",
           "self", "index", "dim", (0, 2)),
    _index("index_put", "index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor",
           "self", "indices", None, (0, 1), " (each index in its own dim)"),
    _index("_index_put_impl", "_index_put_impl(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, "
           "bool unsafe=False) -> Tensor", "self", "indices", None, (0, 1), " (each index in its own dim)"),
    _index("index", "index(Tensor self, Tensor?[] indices) -> Tensor", "self", "indices", None, (0, 1),
           " (each index in its own dim)"),
    _index("take", "take(Tensor self, Tensor index) -> Tensor", "self", "index", None, (0, 1)),
    _index("index_add", "index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor",
           "self", "index", "dim", (0, 2)),
    _index("index_copy", "index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor", "self", "index",
           "dim", (0, 2)),
)}

# The indexing ATen ops an extern call may run: op -> (indexed tensor, index) positions (`match.index_args`).
INDEXING_OPS: dict[str, tuple[int, int]] = {op: c.index_args for op, c in CONTRACTS.items() if c.index_args}
# Those whose schema has a `dim` argument: its position (before an `_out` call's out tensor is counted).
DIM_ARG: dict[str, int] = {op: c.arg_names.index("dim") for op, c in CONTRACTS.items()
                           if c.index_args and "dim" in c.arg_names}


def contract_of(op: str) -> OpContract | None:
    """The contract of ``op`` as a package names it: a custom op's target (``torchvision::roi_align``, an overload
    ``.default`` dropped) or an ATen op (``index_select``, ``_embedding_bag``; a leading ``_`` tried off too)."""
    c = CONTRACTS.get(op) or CONTRACTS.get(op.rsplit(".", 1)[0]) if "::" in op else None
    if c is not None:
        return c
    return CONTRACTS.get(op) or CONTRACTS.get(op.lstrip("_"))
