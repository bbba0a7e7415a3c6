"""What each sample package is, in one place per sample, without torch.

A spec names its model (a class in models.py), makes its example inputs, its export dims and its
trigger (the bad input that makes an index check fail), and states what that failure must trace to
(``expect``: known by construction, before anything is built).  build.py builds from a spec; truth.py
completes ``expect`` from the real run and the package (the failing kernel, ...).  Nothing here imports
torch: ``inputs`` and ``trigger`` take the torch module and a device string, ``dims`` takes
``torch.export.Dim``, so the same spec serves CPU and CUDA and the manifests' truth can be recomputed
without torch (``build.py --refresh``).

Keys of a spec:
  model         class name in models.py (or ``models``: {name: {model, inputs, dims}} for several
                models in one archive, packaged with package_pt2)
  doc           the manifest's description when the class docstring is not it
  inputs, dims  example inputs and dynamic shapes for export
  trigger       the bad input; trigger_doc says it in words (the manifest's ``trigger``)
  expect        static_bound: the bound when it is a number; bound_input: (input, dim) of a size bound;
                bound_terms: every input dim that makes up the bound (several in a compound bound);
                index_input: the input the index comes from; source_contains: an op name the source
                nodes must hold; hops: the ops between the index input and the failing site, when known;
                model (default "model"); kernel_kind "extern" and extern_op when an ATen op the wrapper
                calls checks the index (its name, aoti_torch_<device>_<op>, is known by construction)
  inductor_configs, with_exported_program   build options
What pt2-inspect cannot do yet on a sample is no part of a spec: tests/known_gaps.py.
"""

from __future__ import annotations


def _shared_n(Dim, dims):
    """Dims where the placeholder "n" is one Dim shared by every input that names it."""
    n = Dim("n", min=2, max=100000)
    return tuple({k: (n if v == "n" else v) for k, v in d.items()} for d in dims)


def _shared_b(Dim, dims):
    """Dims where the placeholder "b" (batch) is one Dim shared by every input that names it."""
    b = Dim("batch", min=2, max=64)
    return tuple({k: (b if v == "b" else v) for k, v in d.items()} for d in dims)


def _ids(torch, lo, hi, shape, dev):
    return torch.randint(lo, hi, shape, device=dev)


SPECS = {
    "embedding": dict(
        model="EmbeddingModel",
        inputs=lambda torch, dev: (_ids(torch, 0, 1000, (4, 16), dev),),
        dims=lambda Dim: ({0: Dim("batch", min=1, max=64), 1: Dim("seq", min=1, max=256)},),
        trigger=lambda torch, dev: (torch.tensor([[1, 2, 1500, 3]], device=dev),),
        trigger_doc="ids = [[1, 2, 1500, 3]]: token 1500 is past the 1000-row table",
        expect=dict(static_bound=1000, bound_input=None, bound_terms=[], index_input=0, source_contains="embedding",
                    hops=[]),
    ),
    "gather_dynamic": dict(
        model="GatherModel",
        inputs=lambda torch, dev: (torch.randn(4, 32, device=dev), _ids(torch, 0, 32, (4, 8), dev)),
        dims=lambda Dim: (
            {0: Dim("batch", min=1, max=64), 1: Dim("cols", min=2, max=4096)},
            {0: Dim("batch", min=1, max=64), 1: Dim("k", min=1, max=512)},
        ),
        trigger=lambda torch, dev: (torch.randn(2, 10, device=dev), torch.tensor([[0, 9], [3, 10]], device=dev)),
        trigger_doc="x is 2x10, idx holds 10: one past x's dim 1",
        expect=dict(static_bound=None, bound_input=(0, 1), bound_terms=[(0, 1)], index_input=1, source_contains="gather",
                    hops=[]),
        # Package the exported program with the AOTI files (models/model.json).
        with_exported_program=True,
    ),
    "jagged": dict(
        model="JaggedModel",
        inputs=lambda torch, dev: (torch.randn(10, 8, device=dev), torch.tensor([3, 2, 5], device=dev)),
        dims=lambda Dim: ({0: Dim("n_values", min=2, max=65536)}, {0: Dim("n_lengths", min=1, max=1024)}),
        trigger=lambda torch, dev: (torch.empty(0, 8, device=dev), torch.tensor([0, 0, 0], device=dev)),
        trigger_doc="values is empty (0x8), lengths all zero: the bound values.size(0) is 0",
        expect=dict(static_bound=None, bound_input=(0, 0), bound_terms=[(0, 0)], index_input=1, source_contains="index",
                    hops=["cumsum", "sub", "where"]),
        # Compiled with provenance tracking: the package carries kernel_information.json.
        inductor_configs={"trace.provenance_tracking_level": 1},
    ),
    "scatter_add": dict(
        model="ScatterModel",
        inputs=lambda torch, dev: (
            torch.zeros(16, 4, device=dev),
            _ids(torch, 0, 64, (20,), dev),
            torch.randn(20, 4, device=dev),
        ),
        dims=lambda Dim: (
            {0: Dim("rows", min=2, max=100000)},
            {0: Dim("n", min=2, max=100000)},
            {0: Dim("n", min=2, max=100000)},
        ),
        trigger=lambda torch, dev: (torch.zeros(8, 4, device=dev), torch.tensor([0, 4, 40, 7], device=dev), torch.ones(4, 4, device=dev)),
        trigger_doc="table has 8 rows, key 40 -> bucket 10",
        expect=dict(static_bound=None, bound_input=(0, 0), bound_terms=[(0, 0)], index_input=1, source_contains="index_add",
                    hops=["div"]),
    ),
    "transformer": dict(
        model="TinyTransformer",
        inputs=lambda torch, dev: (_ids(torch, 0, 512, (2, 16), dev),),
        dims=lambda Dim: ({0: Dim("batch", min=1, max=32), 1: Dim("seq", min=2, max=128)},),
        trigger=lambda torch, dev: (torch.tensor([[5, 600, 7, 8]], device=dev),),
        trigger_doc="ids hold 600: past the 512-token vocabulary",
        expect=dict(static_bound=512, bound_input=None, bound_terms=[], index_input=0, source_contains="embedding",
                    hops=[]),
    ),
    "two_models": dict(
        doc="Two exported programs, encoder and decoder, packaged into one archive with package_pt2.",
        # Several models in one archive: each its own class, inputs and dims; the trigger calls expect.model.
        models=dict(
            encoder=dict(
                model="Encoder",
                inputs=lambda torch, dev: (_ids(torch, 0, 256, (2, 8), dev),),
                dims=lambda Dim: ({0: Dim("batch", min=1, max=64), 1: Dim("seq", min=1, max=512)},),
            ),
            decoder=dict(
                model="Decoder",
                inputs=lambda torch, dev: (torch.randn(12, 16, device=dev), _ids(torch, 0, 12, (5,), dev)),
                dims=lambda Dim: ({0: Dim("mem", min=2, max=4096)}, {0: Dim("picks", min=1, max=4096)}),
            ),
        ),
        trigger=lambda torch, dev: (torch.randn(6, 16, device=dev), torch.tensor([0, 9, 2], device=dev)),
        expect=dict(static_bound=None, bound_input=(0, 0), bound_terms=[(0, 0)], index_input=1, source_contains="index",
                    model="decoder", hops=[]),
        trigger_doc="decoder: memory has 6 rows, idx holds 9",
    ),
    # --- index patterns of issue 8 -------------------------------------------------------------
    "index_select": dict(
        model="IndexSelectModel",
        inputs=lambda torch, dev: (torch.randn(16, 4, device=dev), _ids(torch, 0, 16, (5,), dev)),
        dims=lambda Dim: ({0: Dim("rows", min=2, max=4096)}, {0: Dim("n", min=2, max=4096)}),
        trigger=lambda torch, dev: (torch.randn(8, 4, device=dev), torch.tensor([0, 3, 8], device=dev)),
        trigger_doc="x has 8 rows, idx holds 8",
        expect=dict(static_bound=None, bound_input=(0, 0), bound_terms=[(0, 0)], index_input=1,
                    source_contains="index_select", hops=[]),
    ),
    "two_index": dict(
        model="TwoIndexModel",
        inputs=lambda torch, dev: (torch.randn(16, 4, device=dev), _ids(torch, 0, 16, (5,), dev),
                                   _ids(torch, 0, 16, (3,), dev)),
        dims=lambda Dim: ({0: Dim("rows", min=2, max=4096)}, {0: Dim("na", min=2, max=4096)},
                          {0: Dim("nb", min=2, max=4096)}),
        trigger=lambda torch, dev: (torch.randn(8, 4, device=dev), torch.tensor([0, 3, 5], device=dev),
                                    torch.tensor([1, 8], device=dev)),
        trigger_doc="x has 8 rows, a is fine, b holds 8: the check of b fails (an empty x would fail a's first)",
        expect=dict(static_bound=None, bound_input=(0, 0), bound_terms=[(0, 0)], index_input=2,
                    source_contains="index", hops=[]),
    ),
    "take": dict(
        model="TakeModel",
        inputs=lambda torch, dev: (torch.randn(4, 6, device=dev), _ids(torch, 0, 24, (5,), dev)),
        dims=lambda Dim: ({0: Dim("r", min=2, max=1024), 1: Dim("c", min=2, max=1024)}, {0: Dim("n", min=2, max=4096)}),
        trigger=lambda torch, dev: (torch.randn(3, 4, device=dev), torch.tensor([0, 11, 12], device=dev)),
        trigger_doc="x is 3x4 (numel 12), idx holds 12",
        expect=dict(static_bound=None, bound_input=None, bound_terms=[(0, 0), (0, 1)], index_input=1,
                    source_contains="take", hops=[]),
    ),
    "index_put_acc": dict(
        model="IndexPutAccModel",
        inputs=lambda torch, dev: (torch.zeros(16, 4, device=dev), _ids(torch, 0, 16, (6,), dev), torch.randn(6, 4, device=dev)),
        dims=lambda Dim: _shared_n(Dim, ({0: Dim("rows", min=2, max=4096)}, {0: "n"}, {0: "n"})),
        trigger=lambda torch, dev: (torch.zeros(8, 4, device=dev), torch.tensor([1, 9], device=dev), torch.ones(2, 4, device=dev)),
        trigger_doc="x has 8 rows, idx holds 9",
        expect=dict(static_bound=None, bound_input=(0, 0), bound_terms=[(0, 0)], index_input=1,
                    source_contains="index_put", hops=[]),
    ),
    "cat_index": dict(
        model="CatIndexModel",
        inputs=lambda torch, dev: (torch.randn(5, 4, device=dev), torch.randn(7, 4, device=dev), _ids(torch, 0, 12, (6,), dev)),
        dims=lambda Dim: ({0: Dim("na", min=2, max=4096)}, {0: Dim("nb", min=2, max=4096)}, {0: Dim("n", min=2, max=4096)}),
        trigger=lambda torch, dev: (torch.randn(3, 4, device=dev), torch.randn(2, 4, device=dev), torch.tensor([0, 4, 5], device=dev)),
        trigger_doc="a has 3 rows, b 2: the cat has 5, idx holds 5",
        expect=dict(static_bound=None, bound_input=None, bound_terms=[(0, 0), (1, 0)], index_input=2,
                    source_contains="index", hops=[]),
    ),
    "adv_index_2d": dict(
        model="AdvIndex2DModel",
        inputs=lambda torch, dev: (torch.randn(6, 7, device=dev), _ids(torch, 0, 6, (5,), dev), _ids(torch, 0, 7, (5,), dev)),
        dims=lambda Dim: _shared_n(Dim, ({0: Dim("r", min=2, max=1024), 1: Dim("c", min=2, max=1024)}, {0: "n"}, {0: "n"})),
        trigger=lambda torch, dev: (torch.randn(4, 5, device=dev), torch.tensor([0, 1], device=dev), torch.tensor([2, 5], device=dev)),
        trigger_doc="x is 4x5, rows are fine, cols hold 5",
        expect=dict(static_bound=None, bound_input=(0, 1), bound_terms=[(0, 1)], index_input=2,
                    source_contains="index", hops=[]),
    ),
    "topk_gather": dict(
        model="TopkGatherModel",
        inputs=lambda torch, dev: (torch.randn(2, 10, device=dev), torch.randn(2, 6, device=dev)),
        dims=lambda Dim: _shared_b(Dim, ({0: "b", 1: Dim("n", min=3, max=1024)}, {0: "b", 1: Dim("m", min=3, max=1024)})),
        trigger=lambda torch, dev: (torch.arange(20, dtype=torch.float32, device=dev).reshape(2, 10), torch.randn(2, 6, device=dev)),
        trigger_doc="scores 2x10 rise along dim 1: top-3 positions 9, 8, 7; table has 6 columns",
        expect=dict(static_bound=None, bound_input=(1, 1), bound_terms=[(1, 1)], index_input=0,
                    source_contains="gather", hops=["topk"]),
    ),
    "bucketize_index": dict(
        model="BucketizeIndexModel",
        inputs=lambda torch, dev: (torch.rand(5, device=dev), torch.randn(10, 4, device=dev)),
        dims=lambda Dim: ({0: Dim("n", min=2, max=4096)}, {0: Dim("t", min=2, max=4096)}),
        trigger=lambda torch, dev: (torch.tensor([0.5, 2.0], device=dev), torch.randn(6, 4, device=dev)),
        trigger_doc="x holds 2.0, past the last boundary: bucket 8; table has 6 rows",
        expect=dict(static_bound=None, bound_input=(1, 0), bound_terms=[(1, 0)], index_input=0,
                    source_contains="index", hops=["bucketize"]),
    ),
    "argmax_embedding": dict(
        model="ArgmaxEmbeddingModel",
        inputs=lambda torch, dev: (torch.randn(4, 50, device=dev),),
        dims=lambda Dim: ({0: Dim("b", min=2, max=64), 1: Dim("n", min=2, max=1024)},),
        trigger=lambda torch, dev: (torch.nn.functional.one_hot(torch.tensor([3, 120]), 150).float().to(dev),),
        trigger_doc="scores 2x150, row 1 peaks at column 120: row 120 of a 100-row table",
        expect=dict(static_bound=100, bound_input=None, bound_terms=[], index_input=0,
                    source_contains="embedding", hops=["argmax"]),
    ),
    "embedding_bag": dict(
        model="EmbeddingBagModel",
        inputs=lambda torch, dev: (_ids(torch, 0, 300, (10,), dev), torch.tensor([0, 3, 7], device=dev)),
        dims=lambda Dim: ({0: Dim("n", min=2, max=65536)}, {0: Dim("bags", min=2, max=4096)}),
        trigger=lambda torch, dev: (torch.tensor([1, 2, 3, 4, 300, 5], device=dev), torch.tensor([0, 2], device=dev)),
        trigger_doc="ids hold 300: past the 300-row bag table",
        expect=dict(static_bound=300, bound_input=None, bound_terms=[], index_input=0,
                    source_contains="embedding_bag", hops=[], kernel_kind="extern", extern_op="_embedding_bag"),
    ),
    "scatter_reduce": dict(
        model="ScatterReduceModel",
        inputs=lambda torch, dev: (torch.zeros(16, 4, device=dev), _ids(torch, 0, 16, (20, 4), dev), torch.randn(20, 4, device=dev)),
        dims=lambda Dim: _shared_n(Dim, ({0: Dim("rows", min=2, max=100000)}, {0: "n"}, {0: "n"})),
        trigger=lambda torch, dev: (torch.zeros(16, 4, device=dev), torch.tensor([[0, 1, 2, 3], [20, 1, 2, 3]], device=dev),
                             torch.ones(2, 4, device=dev)),
        trigger_doc="table has 16 rows, idx holds 20",
        expect=dict(static_bound=None, bound_input=(0, 0), bound_terms=[(0, 0)], index_input=1,
                    source_contains="scatter_reduce", hops=[], extern_op="scatter_reduce_two_out"),
    ),
    # --- real Hugging Face architectures (transformers, tiny configs, random weights) ----------
    "hf_roberta": dict(
        model="HFRoberta",
        inputs=lambda torch, dev: (_ids(torch, 3, 120, (2, 16), dev),),
        dims=lambda Dim: ({0: Dim("batch", min=1, max=8), 1: Dim("seq", min=2, max=64)},),
        trigger=lambda torch, dev: (torch.tensor([[0, 5, 150, 7, 2]], device=dev),),
        trigger_doc="token id 150 in a 120-token vocabulary",
        expect=dict(static_bound=120, bound_input=None, bound_terms=[], index_input=0,
                    source_contains="embedding", hops=[]),
    ),
    "hf_llama": dict(
        model="HFLlama",
        inputs=lambda torch, dev: (_ids(torch, 0, 120, (2, 16), dev),),
        dims=lambda Dim: ({0: Dim("batch", min=1, max=8), 1: Dim("seq", min=2, max=64)},),
        trigger=lambda torch, dev: (torch.tensor([[1, 130, 3, 4]], device=dev),),
        trigger_doc="token id 130 in a 120-token vocabulary",
        expect=dict(static_bound=120, bound_input=None, bound_terms=[], index_input=0,
                    source_contains="embedding", hops=[]),
    ),
    "hf_t5_encoder": dict(
        model="HFT5Encoder",
        inputs=lambda torch, dev: (_ids(torch, 0, 120, (2, 16), dev),),
        dims=lambda Dim: ({0: Dim("batch", min=1, max=8), 1: Dim("seq", min=2, max=64)},),
        trigger=lambda torch, dev: (torch.tensor([[4, 9, 125, 1]], device=dev),),
        trigger_doc="token id 125 in a 120-token vocabulary",
        expect=dict(static_bound=120, bound_input=None, bound_terms=[], index_input=0,
                    source_contains="embedding", hops=[]),
    ),
}
