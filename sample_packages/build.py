"""Build the real AOTInductor sample packages that pt2-inspect is tested on.

Each sample is a small model defined here, exported with dynamic shapes,
compiled with ``torch._inductor.aoti_compile_and_package`` (or, for the
multi-model and exported-program samples, ``package_pt2``), then *run* with a
trigger input in a subprocess so that the real error text the package prints
is captured.  Output, per sample::

    sample_packages/<device>/<name>/<name>.pt2
    sample_packages/<device>/<name>/manifest.json

The manifest records the model source, export dims and ranges, the trigger,
the captured error text, and what that error must trace to (the ground truth
the tests check pt2-inspect against; it comes from how the model was built,
not from pt2-inspect).

Usage::

    python sample_packages/build.py --device cpu            # torch 2.13 CPU
    CXX=/usr/bin/g++ python sample_packages/build.py --device cuda   # on a GPU box
    python sample_packages/build.py --device cpu --only embedding

    python sample_packages/build.py --refresh --out sample_packages/cpu-2.8   # manifests' expect only
    /work/venvs/torch2.6/bin/python sample_packages/build.py --out sample_packages/cpu-2.6 --only take

This script needs torch; pt2-inspect itself never imports it.  The ``hf_*`` samples also need
``transformers`` (built here with transformers==5.24.0, installed by hand into the venv, not a
project dependency): models come from tiny configs with random weights, nothing from a hub.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

HERE = Path(__file__).resolve().parent


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------


class EmbeddingModel(nn.Module):
    """Embedding lookup into a static 1000-row table: the index is input 0's values."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(1000, 32)
        self.proj = nn.Linear(32, 8)

    def forward(self, ids):
        return self.proj(torch.relu(self.emb(ids)))


class GatherModel(nn.Module):
    """Gather along a dynamic dimension: the bound is input 0's dim 1 (a size parameter)."""

    def forward(self, x, idx):
        return torch.gather(x, 1, idx) * 2.0 + 1.0


class JaggedModel(nn.Module):
    """The debugging guide's jagged pattern: lengths -> cumsum -> -1 -> where -> index/index_copy.

    With an empty ``values`` tensor the bound (values' dim 0) becomes 0 and every index fails.
    The index reaches the failing kernel through an intermediate buffer (the cumsum's output).
    """

    def forward(self, values, lengths):
        offsets = torch.cumsum(lengths, 0)
        last = offsets - 1
        idx = torch.where(last >= 0, last, torch.zeros_like(last))
        picked = values[idx]
        updated = values.index_copy(0, idx, picked * 2.0)
        return picked, updated


class ScatterModel(nn.Module):
    """index_add with data-dependent indices: bucket = keys // 4 into a dynamic table."""

    def forward(self, table, keys, src):
        bucket = torch.div(keys, 4, rounding_mode="floor")
        return table.index_add(0, bucket, src * 0.5)


class Block(nn.Module):
    """Pre-norm attention + MLP.  Each block gets its own MLP width and activation,
    as mixed-width models do, so Inductor cannot reuse one block's kernels for the next."""

    ACTS = (F.gelu, F.silu, F.relu, torch.tanh)

    def __init__(self, d, heads, ratio=4, act=0):
        super().__init__()
        self.heads = heads
        self.act = self.ACTS[act % len(self.ACTS)]
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, ratio * d)
        self.fc2 = nn.Linear(ratio * d, d)

    def forward(self, h):
        b, s, d = h.shape
        q, k, v = self.qkv(self.ln1(h)).split(d, dim=-1)
        q = q.view(b, s, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, s, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, s, self.heads, d // self.heads).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        h = h + self.out(a.transpose(1, 2).reshape(b, s, d))
        return h + self.fc2(self.act(self.fc1(self.ln2(h))))


class TinyTransformer(nn.Module):
    """A 12-block decoder-only transformer: token + position embeddings, dynamic batch and sequence."""

    def __init__(self, vocab=512, d=64, heads=4, layers=12, max_pos=128):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_pos, d)
        self.blocks = nn.ModuleList(Block(d, heads, ratio=1 + i, act=i) for i in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], device=ids.device)
        h = self.tok(ids) + self.pos(pos)
        for blk in self.blocks:
            h = blk(h)
        return self.head(self.ln_f(h))


class Encoder(nn.Module):
    """First model of the two-model package: token embedding + projection."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(256, 16)
        self.proj = nn.Linear(16, 16)

    def forward(self, ids):
        return torch.tanh(self.proj(self.emb(ids)))


class Decoder(nn.Module):
    """Second model of the two-model package: picks rows of a dynamic memory by index."""

    def __init__(self):
        super().__init__()
        self.out = nn.Linear(16, 4)

    def forward(self, memory, idx):
        return self.out(memory[idx] + 1.0)


# --- index patterns of issue 8 --------------------------------------------------


class IndexSelectModel(nn.Module):
    """index_select rows of a dynamic table: the bound is input 0's dim 0, the index input 1's values."""

    def forward(self, x, idx):
        return x.index_select(0, idx) * 2.0


class TakeModel(nn.Module):
    """torch.take on a 2-D input: the index is flat, so the bound is x.numel() = x.size(0) * x.size(1)."""

    def forward(self, x, idx):
        return torch.take(x, idx) + 1.0


class IndexPutAccModel(nn.Module):
    """index_put_ with accumulate=True (an atomic scatter-add): the bound is input 0's dim 0."""

    def forward(self, x, idx, src):
        out = x.clone()
        out.index_put_((idx,), src, accumulate=True)
        return out


class CatIndexModel(nn.Module):
    """cat two dynamic tables then index: the bound is a.size(0) + b.size(0), a compound bound."""

    def forward(self, a, b, idx):
        return torch.cat([a, b])[idx] * 2.0


class AdvIndex2DModel(nn.Module):
    """2-D advanced indexing x[rows, cols]: two checks, rows < x.size(0) and cols < x.size(1)."""

    def forward(self, x, rows, cols):
        return x[rows, cols] * 2.0


class TopkGatherModel(nn.Module):
    """topk positions of scores (input 0) gather from a narrower table (input 1): bound is table.size(1)."""

    def forward(self, scores, table):
        _, pos = scores.topk(3, dim=1)
        return torch.gather(table, 1, pos) * 2.0


class BucketizeIndexModel(nn.Module):
    """bucketize x (input 0) against 8 fixed boundaries (0..9 buckets) and index a dynamic table (input 1)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("boundaries", torch.linspace(0.0, 1.0, 8))

    def forward(self, x, table):
        return table[torch.bucketize(x, self.boundaries)] * 2.0


class ArgmaxEmbeddingModel(nn.Module):
    """argmax over scores' dim 1 picks a row of a 100-row embedding: the index is written by the same kernel."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 8)

    def forward(self, scores):
        return self.emb(scores.argmax(dim=1)) * 2.0


class EmbeddingBagModel(nn.Module):
    """Recsys-style nn.EmbeddingBag (an extern ATen op in the wrapper): 300 rows, ids (input 0) + offsets (input 1)."""

    def __init__(self):
        super().__init__()
        self.bag = nn.EmbeddingBag(300, 16, mode="sum")
        self.proj = nn.Linear(16, 4)

    def forward(self, ids, offsets):
        return self.proj(self.bag(ids, offsets))


class ScatterReduceModel(nn.Module):
    """scatter_reduce(sum) into a dynamic table: an extern op that older wrappers call without an error check."""

    def forward(self, table, idx, src):
        return table.scatter_reduce(0, idx, src, "sum")


# --- real Hugging Face architectures, from tiny configs (random weights, no hub) ---------------


def _hf(model_cls, config_cls, **cfg):
    """A transformers model from a config alone: random weights, nothing fetched from a hub."""
    import transformers

    torch.manual_seed(0)
    config = getattr(transformers, config_cls)(**cfg)
    config._attn_implementation = "eager"  # plain kernels on every build, no SDPA backend choice
    return getattr(transformers, model_cls)(config)


class HFRoberta(nn.Module):
    """Hugging Face RobertaModel (2 layers, hidden 32, vocab 120): token ids (input 0) index word_embeddings."""

    def __init__(self):
        super().__init__()
        self.m = _hf("RobertaModel", "RobertaConfig", vocab_size=120, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=80, type_vocab_size=1, pad_token_id=1)

    def forward(self, input_ids):
        return self.m(input_ids=input_ids).last_hidden_state


class HFLlama(nn.Module):
    """Hugging Face LlamaModel (2 layers, hidden 32, vocab 120): token ids (input 0) index embed_tokens."""

    def __init__(self):
        super().__init__()
        self.m = _hf("LlamaModel", "LlamaConfig", vocab_size=120, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     num_key_value_heads=1, intermediate_size=64, max_position_embeddings=128)

    def forward(self, input_ids):
        return self.m(input_ids=input_ids, use_cache=False).last_hidden_state


class HFT5Encoder(nn.Module):
    """Hugging Face T5EncoderModel (2 layers, d_model 32, vocab 120): token ids (input 0) index the shared embedding."""

    def __init__(self):
        super().__init__()
        self.m = _hf("T5EncoderModel", "T5Config", vocab_size=120, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2,
                     relative_attention_num_buckets=8, relative_attention_max_distance=32)

    def forward(self, input_ids):
        return self.m(input_ids=input_ids).last_hidden_state


# --------------------------------------------------------------------------
# Sample specifications
# --------------------------------------------------------------------------
# Each spec: how to make the model and example inputs, the dynamic shapes,
# the trigger (a bad input that makes an assertion fail), and what that
# failure must trace to.  ``inputs`` / ``trigger`` are callables taking a
# device string so the same spec serves CPU and CUDA.


def _shared_n(dims):
    """Dims where the placeholder "n" is one Dim shared by every input that names it."""
    n = Dim("n", min=2, max=100000)
    return tuple({k: (n if v == "n" else v) for k, v in d.items()} for d in dims)


def _shared_b(dims):
    """Dims where the placeholder "b" (batch) is one Dim shared by every input that names it."""
    b = Dim("batch", min=2, max=64)
    return tuple({k: (b if v == "b" else v) for k, v in d.items()} for d in dims)


def _ids(lo, hi, shape, dev):
    return torch.randint(lo, hi, shape, device=dev)


SPECS = {
    "embedding": dict(
        doc=EmbeddingModel.__doc__,
        model=EmbeddingModel,
        inputs=lambda dev: (_ids(0, 1000, (4, 16), dev),),
        dims=lambda: ({0: Dim("batch", min=1, max=64), 1: Dim("seq", min=1, max=256)},),
        trigger=lambda dev: (torch.tensor([[1, 2, 1500, 3]], device=dev),),
        trigger_doc="ids = [[1, 2, 1500, 3]]: token 1500 is past the 1000-row table",
        expect=dict(static_bound=1000, bound_input=None, bound_terms=[], index_input=0, source_contains="embedding",
                    hops=[]),
    ),
    "gather_dynamic": dict(
        doc=GatherModel.__doc__,
        model=GatherModel,
        inputs=lambda dev: (torch.randn(4, 32, device=dev), _ids(0, 32, (4, 8), dev)),
        dims=lambda: (
            {0: Dim("batch", min=1, max=64), 1: Dim("cols", min=2, max=4096)},
            {0: Dim("batch", min=1, max=64), 1: Dim("k", min=1, max=512)},
        ),
        trigger=lambda dev: (torch.randn(2, 10, device=dev), torch.tensor([[0, 9], [3, 10]], device=dev)),
        trigger_doc="x is 2x10, idx holds 10: one past x's dim 1",
        expect=dict(static_bound=None, bound_input=(0, 1), bound_terms=[(0, 1)], index_input=1, source_contains="gather",
                    hops=[]),
        # Package the exported program with the AOTI files (models/model.json).
        with_exported_program=True,
    ),
    "jagged": dict(
        doc=JaggedModel.__doc__,
        model=JaggedModel,
        inputs=lambda dev: (torch.randn(10, 8, device=dev), torch.tensor([3, 2, 5], device=dev)),
        dims=lambda: ({0: Dim("n_values", min=2, max=65536)}, {0: Dim("n_lengths", min=1, max=1024)}),
        trigger=lambda dev: (torch.empty(0, 8, device=dev), torch.tensor([0, 0, 0], device=dev)),
        trigger_doc="values is empty (0x8), lengths all zero: the bound values.size(0) is 0",
        expect=dict(static_bound=None, bound_input=(0, 0), bound_terms=[(0, 0)], index_input=1, source_contains="index",
                    hops=["cumsum", "sub", "where"]),
        # Compiled with provenance tracking: the package carries kernel_information.json.
        inductor_configs={"trace.provenance_tracking_level": 1},
    ),
    "scatter_add": dict(
        doc=ScatterModel.__doc__,
        model=ScatterModel,
        inputs=lambda dev: (
            torch.zeros(16, 4, device=dev),
            _ids(0, 64, (20,), dev),
            torch.randn(20, 4, device=dev),
        ),
        dims=lambda: (
            {0: Dim("rows", min=2, max=100000)},
            {0: Dim("n", min=2, max=100000)},
            {0: Dim("n", min=2, max=100000)},
        ),
        trigger=lambda dev: (torch.zeros(8, 4, device=dev), torch.tensor([0, 4, 40, 7], device=dev), torch.ones(4, 4, device=dev)),
        trigger_doc="table has 8 rows, key 40 -> bucket 10",
        expect=dict(static_bound=None, bound_input=(0, 0), bound_terms=[(0, 0)], index_input=1, source_contains="index_add",
                    hops=["div"]),
    ),
    "transformer": dict(
        doc=TinyTransformer.__doc__,
        model=TinyTransformer,
        inputs=lambda dev: (_ids(0, 512, (2, 16), dev),),
        dims=lambda: ({0: Dim("batch", min=1, max=32), 1: Dim("seq", min=2, max=128)},),
        trigger=lambda dev: (torch.tensor([[5, 600, 7, 8]], device=dev),),
        trigger_doc="ids hold 600: past the 512-token vocabulary",
        expect=dict(static_bound=512, bound_input=None, bound_terms=[], index_input=0, source_contains="embedding",
                    hops=[]),
    ),
    "two_models": dict(
        doc="Two exported programs, encoder and decoder, packaged into one archive with package_pt2.",
        model=None,  # special-cased in build_two_models
        expect=dict(static_bound=None, bound_input=(0, 0), bound_terms=[(0, 0)], index_input=1, source_contains="index",
                    model="decoder", hops=[]),
        trigger_doc="decoder: memory has 6 rows, idx holds 9",
    ),
    # --- index patterns of issue 8 -------------------------------------------------------------
    # expect.bound_terms: every input dim that makes up the bound ({index, dim}); a compound bound
    # has several.  expect.kernel_kind (set after the run): "cpp" / "triton" (a generated kernel) or
    # "extern" (an ATen op the wrapper calls; its name, aoti_torch_<device>_<op>, is known by
    # construction).  expect.hops: the ops
    # between the index input and the failing site, when known.
    "index_select": dict(
        doc=IndexSelectModel.__doc__,
        model=IndexSelectModel,
        inputs=lambda dev: (torch.randn(16, 4, device=dev), _ids(0, 16, (5,), dev)),
        dims=lambda: ({0: Dim("rows", min=2, max=4096)}, {0: Dim("n", min=2, max=4096)}),
        trigger=lambda dev: (torch.randn(8, 4, device=dev), torch.tensor([0, 3, 8], device=dev)),
        trigger_doc="x has 8 rows, idx holds 8",
        expect=dict(static_bound=None, bound_input=(0, 0), bound_terms=[(0, 0)], index_input=1,
                    source_contains="index_select", hops=[]),
    ),
    "take": dict(
        doc=TakeModel.__doc__,
        model=TakeModel,
        inputs=lambda dev: (torch.randn(4, 6, device=dev), _ids(0, 24, (5,), dev)),
        dims=lambda: ({0: Dim("r", min=2, max=1024), 1: Dim("c", min=2, max=1024)}, {0: Dim("n", min=2, max=4096)}),
        trigger=lambda dev: (torch.randn(3, 4, device=dev), torch.tensor([0, 11, 12], device=dev)),
        trigger_doc="x is 3x4 (numel 12), idx holds 12",
        expect=dict(static_bound=None, bound_input=None, bound_terms=[(0, 0), (0, 1)], index_input=1,
                    source_contains="take", hops=[],
                    known_gap="compound bound x.size(0)*x.size(1): bound.terms not traced yet, issue 8"),
    ),
    "index_put_acc": dict(
        doc=IndexPutAccModel.__doc__,
        model=IndexPutAccModel,
        inputs=lambda dev: (torch.zeros(16, 4, device=dev), _ids(0, 16, (6,), dev), torch.randn(6, 4, device=dev)),
        dims=lambda: _shared_n(({0: Dim("rows", min=2, max=4096)}, {0: "n"}, {0: "n"})),
        trigger=lambda dev: (torch.zeros(8, 4, device=dev), torch.tensor([1, 9], device=dev), torch.ones(2, 4, device=dev)),
        trigger_doc="x has 8 rows, idx holds 9",
        expect=dict(static_bound=None, bound_input=(0, 0), bound_terms=[(0, 0)], index_input=1,
                    source_contains="index_put", hops=[]),
    ),
    "cat_index": dict(
        doc=CatIndexModel.__doc__,
        model=CatIndexModel,
        inputs=lambda dev: (torch.randn(5, 4, device=dev), torch.randn(7, 4, device=dev), _ids(0, 12, (6,), dev)),
        dims=lambda: ({0: Dim("na", min=2, max=4096)}, {0: Dim("nb", min=2, max=4096)}, {0: Dim("n", min=2, max=4096)}),
        trigger=lambda dev: (torch.randn(3, 4, device=dev), torch.randn(2, 4, device=dev), torch.tensor([0, 4, 5], device=dev)),
        trigger_doc="a has 3 rows, b 2: the cat has 5, idx holds 5",
        expect=dict(static_bound=None, bound_input=None, bound_terms=[(0, 0), (1, 0)], index_input=2,
                    source_contains="index", hops=[],
                    known_gap="compound bound a.size(0)+b.size(0): bound.terms not traced yet, issue 8"),
    ),
    "adv_index_2d": dict(
        doc=AdvIndex2DModel.__doc__,
        model=AdvIndex2DModel,
        inputs=lambda dev: (torch.randn(6, 7, device=dev), _ids(0, 6, (5,), dev), _ids(0, 7, (5,), dev)),
        dims=lambda: _shared_n(({0: Dim("r", min=2, max=1024), 1: Dim("c", min=2, max=1024)}, {0: "n"}, {0: "n"})),
        trigger=lambda dev: (torch.randn(4, 5, device=dev), torch.tensor([0, 1], device=dev), torch.tensor([2, 5], device=dev)),
        trigger_doc="x is 4x5, rows are fine, cols hold 5",
        expect=dict(static_bound=None, bound_input=(0, 1), bound_terms=[(0, 1)], index_input=2,
                    source_contains="index", hops=[]),
    ),
    "topk_gather": dict(
        doc=TopkGatherModel.__doc__,
        model=TopkGatherModel,
        inputs=lambda dev: (torch.randn(2, 10, device=dev), torch.randn(2, 6, device=dev)),
        dims=lambda: _shared_b(({0: "b", 1: Dim("n", min=3, max=1024)}, {0: "b", 1: Dim("m", min=3, max=1024)})),
        trigger=lambda dev: (torch.arange(20, dtype=torch.float32, device=dev).reshape(2, 10), torch.randn(2, 6, device=dev)),
        trigger_doc="scores 2x10 rise along dim 1: top-3 positions 9, 8, 7; table has 6 columns",
        expect=dict(static_bound=None, bound_input=(1, 1), bound_terms=[(1, 1)], index_input=0,
                    source_contains="gather", hops=["topk"]),
    ),
    "bucketize_index": dict(
        doc=BucketizeIndexModel.__doc__,
        model=BucketizeIndexModel,
        inputs=lambda dev: (torch.rand(5, device=dev), torch.randn(10, 4, device=dev)),
        dims=lambda: ({0: Dim("n", min=2, max=4096)}, {0: Dim("t", min=2, max=4096)}),
        trigger=lambda dev: (torch.tensor([0.5, 2.0], device=dev), torch.randn(6, 4, device=dev)),
        trigger_doc="x holds 2.0, past the last boundary: bucket 8; table has 6 rows",
        expect=dict(static_bound=None, bound_input=(1, 0), bound_terms=[(1, 0)], index_input=0,
                    source_contains="index", hops=["bucketize"]),
    ),
    "argmax_embedding": dict(
        doc=ArgmaxEmbeddingModel.__doc__,
        model=ArgmaxEmbeddingModel,
        inputs=lambda dev: (torch.randn(4, 50, device=dev),),
        dims=lambda: ({0: Dim("b", min=2, max=64), 1: Dim("n", min=2, max=1024)},),
        trigger=lambda dev: (torch.nn.functional.one_hot(torch.tensor([3, 120]), 150).float().to(dev),),
        trigger_doc="scores 2x150, row 1 peaks at column 120: row 120 of a 100-row table",
        expect=dict(static_bound=100, bound_input=None, bound_terms=[], index_input=0,
                    source_contains="embedding", hops=["argmax"],
                    known_gap="index loaded from a buffer the same kernel stored (argmax): not followed yet, issue 8"),
    ),
    "embedding_bag": dict(
        doc=EmbeddingBagModel.__doc__,
        model=EmbeddingBagModel,
        inputs=lambda dev: (_ids(0, 300, (10,), dev), torch.tensor([0, 3, 7], device=dev)),
        dims=lambda: ({0: Dim("n", min=2, max=65536)}, {0: Dim("bags", min=2, max=4096)}),
        trigger=lambda dev: (torch.tensor([1, 2, 3, 4, 300, 5], device=dev), torch.tensor([0, 2], device=dev)),
        trigger_doc="ids hold 300: past the 300-row bag table",
        expect=dict(static_bound=300, bound_input=None, bound_terms=[], index_input=0,
                    source_contains="embedding_bag", hops=[], kernel_kind="extern", extern_op="_embedding_bag",
                    known_gap="failure inside an extern ATen op (_embedding_bag) is not traced yet, issue 8"),
    ),
    "scatter_reduce": dict(
        doc=ScatterReduceModel.__doc__,
        model=ScatterReduceModel,
        inputs=lambda dev: (torch.zeros(16, 4, device=dev), _ids(0, 16, (20, 4), dev), torch.randn(20, 4, device=dev)),
        dims=lambda: _shared_n(({0: Dim("rows", min=2, max=100000)}, {0: "n"}, {0: "n"})),
        trigger=lambda dev: (torch.zeros(16, 4, device=dev), torch.tensor([[0, 1, 2, 3], [20, 1, 2, 3]], device=dev),
                             torch.ones(2, 4, device=dev)),
        trigger_doc="table has 16 rows, idx holds 20",
        expect=dict(static_bound=None, bound_input=(0, 0), bound_terms=[(0, 0)], index_input=1,
                    source_contains="scatter_reduce", hops=[], extern_op="scatter_reduce_two_out"),
    ),
    # --- real Hugging Face architectures (transformers, tiny configs, random weights) ----------
    "hf_roberta": dict(
        doc=HFRoberta.__doc__,
        model=HFRoberta,
        inputs=lambda dev: (_ids(3, 120, (2, 16), dev),),
        dims=lambda: ({0: Dim("batch", min=1, max=8), 1: Dim("seq", min=2, max=64)},),
        trigger=lambda dev: (torch.tensor([[0, 5, 150, 7, 2]], device=dev),),
        trigger_doc="token id 150 in a 120-token vocabulary",
        expect=dict(static_bound=120, bound_input=None, bound_terms=[], index_input=0,
                    source_contains="embedding", hops=[]),
    ),
    "hf_llama": dict(
        doc=HFLlama.__doc__,
        model=HFLlama,
        inputs=lambda dev: (_ids(0, 120, (2, 16), dev),),
        dims=lambda: ({0: Dim("batch", min=1, max=8), 1: Dim("seq", min=2, max=64)},),
        trigger=lambda dev: (torch.tensor([[1, 130, 3, 4]], device=dev),),
        trigger_doc="token id 130 in a 120-token vocabulary",
        expect=dict(static_bound=120, bound_input=None, bound_terms=[], index_input=0,
                    source_contains="embedding", hops=[]),
    ),
    "hf_t5_encoder": dict(
        doc=HFT5Encoder.__doc__,
        model=HFT5Encoder,
        inputs=lambda dev: (_ids(0, 120, (2, 16), dev),),
        dims=lambda: ({0: Dim("batch", min=1, max=8), 1: Dim("seq", min=2, max=64)},),
        trigger=lambda dev: (torch.tensor([[4, 9, 125, 1]], device=dev),),
        trigger_doc="token id 125 in a 120-token vocabulary",
        expect=dict(static_bound=120, bound_input=None, bound_terms=[], index_input=0,
                    source_contains="embedding", hops=[]),
    ),
}


# --------------------------------------------------------------------------
# Building
# --------------------------------------------------------------------------


def _export(model, args, dims):
    return torch.export.export(model, args, dynamic_shapes=dims, strict=False)


def _dims_json(dims):
    out = []
    for d in dims:
        out.append({str(k): {"name": v.__name__, "min": v.min, "max": v.max} for k, v in (d or {}).items()})
    return out


def _source(cls):
    return textwrap.dedent(inspect.getsource(cls))


def build_one(name, dev, out_dir: Path):
    spec = SPECS[name]
    torch.manual_seed(0)
    pkg_dir = out_dir / name
    if pkg_dir.exists():
        shutil.rmtree(pkg_dir)
    pkg_dir.mkdir(parents=True)
    pkg = pkg_dir / f"{name}.pt2"
    manifest = {
        "name": name,
        "description": spec["doc"].strip() if spec.get("doc") else "",
        "device": dev,
        "torch": torch.__version__,
        "triton": _triton_version(),
    }
    if name == "two_models":
        manifest.update(build_two_models(dev, pkg))
    else:
        model = spec["model"]().to(dev).eval()
        args = spec["inputs"](dev)
        dims = spec["dims"]()
        ep = _export(model, args, dims)
        configs = _known_configs(spec.get("inductor_configs") or {})
        with_ep = spec.get("with_exported_program")
        if with_ep:
            try:
                from torch.export.pt2_archive._package import package_pt2
            except ImportError:  # older builds (2.6) cannot package an exported program with AOTI files
                print(f"  (torch {torch.__version__} has no package_pt2: AOTI files only)", flush=True)
                with_ep = False
        if with_ep:
            files = torch._inductor.aot_compile(
                ep.module(), args, options={"aot_inductor.package": True, **configs}
            )
            package_pt2(str(pkg), exported_programs={"model": ep}, aoti_files={"model": files})
        else:
            torch._inductor.aoti_compile_and_package(ep, package_path=str(pkg), inductor_configs=configs)
        manifest.update(
            {
                "model_class": spec["model"].__name__,
                "model_source": _source(spec["model"]),
                "inputs": [{"shape": list(a.shape), "dtype": str(a.dtype).replace("torch.", "")} for a in args],
                "dynamic_shapes": _dims_json(dims),
                "inductor_configs": configs,
                "exported_program_packaged": bool(with_ep),
            }
        )
    manifest["trigger"] = spec["trigger_doc"]
    err = run_trigger(name, dev, pkg)
    manifest["error"] = err
    manifest["expect"] = expect_for(name, dev, err, pkg)
    _deflate(pkg)
    manifest["package_bytes"] = pkg.stat().st_size
    (pkg_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    (pkg_dir / "error.log").write_text(err["stderr"].rstrip("\n") + "\n")  # the real stderr, to paste or --log
    return manifest


def expect_for(name, dev, err, pkg: Path):
    """The manifest's truth: the spec's (by construction), completed from the real run and the package."""
    exp = dict(SPECS[name]["expect"])
    if isinstance(exp.get("bound_input"), tuple):
        i, d = exp["bound_input"]
        exp["bound_input"] = {"index": i, "dim": d}
    if "bound_terms" in exp:
        exp["bound_terms"] = [{"index": i, "dim": d} for i, d in exp["bound_terms"]]
    exp.setdefault("model", "model")
    exp["kernel"] = failing_kernel(err, pkg)
    op = exp.get("extern_op")
    # Work pt2-inspect has not done yet, each with the per-sample tests it makes fail (test_samples).
    trace = ["test_captured_error_traces_to_manifest"]
    gaps = [(exp.pop("known_gap"), trace)] if exp.get("known_gap") else []
    if exp["kernel"]:  # a generated kernel: pt2-inspect's words, "triton" or "cpp"
        exp["kernel_kind"] = "triton" if exp["kernel"].startswith("triton_") else "cpp"
    elif op and (_extern_failed(err["stderr"]) or _unchecked_extern(pkg, f"aoti_torch_{dev}_{op}")):
        # The generated kernels never saw the value: the ATen op the wrapper calls failed.
        exp["kernel"] = f"aoti_torch_{dev}_{op}"
        exp["kernel_kind"] = "extern"
        if _extern_failed(err["stderr"]) and not gaps:
            gaps.append((f"failure inside an extern ATen op ({op}) is not traced yet, issue 8", trace))
    else:
        exp["kernel_kind"] = None
    if op:
        # Called as a bare statement, without AOTI_TORCH_ERROR_CODE_CHECK: a failure is lost, the run goes on.
        exp["unchecked_extern"] = _unchecked_extern(pkg, f"aoti_torch_{dev}_{op}")
    # Did the bad input make the package fail at all?  (A swallowed extern exception exits 0.)
    exp["fired"] = err["returncode"] != 0 or "Exception in aoti_torch" in err["stderr"]
    layout = _old_layout(pkg)
    if layout:
        gaps.insert(0, (layout, ["test_show_json_matches_package_and_manifest", *trace,
                                 "test_every_assertion_traces_completely", "test_grep_recipe_agrees_with_graph"]))
    elif dev == "cpu" and not _metadata_isa(pkg):
        gaps.append(("CPU ISA only in the kernel.cpp's compile command (-D CPU_CAPABILITY_*), not in "
                     "wrapper_metadata.json (torch 2.8): show reports none, issue 8",
                     ["test_show_json_matches_package_and_manifest"]))
    if gaps:
        exp["known_gap"] = "; ".join(g for g, _ in gaps)
        exp["known_gap_tests"] = sorted({t for _, ts in gaps for t in ts})
    return exp


def _metadata_isa(pkg: Path):
    """AOTI_CPU_ISA from the wrapper's metadata JSON (torch 2.13 writes it; 2.8 writes only the device)."""
    with zipfile.ZipFile(pkg) as zf:
        for n in zf.namelist():
            if n.endswith("wrapper_metadata.json"):
                return json.loads(zf.read(n)).get("AOTI_CPU_ISA")
    return None


def _old_layout(pkg: Path):
    """torch 2.6 writes no *.wrapper.cpp: one data/aotinductor/model/<hash>.cpp with the kernels inline."""
    with zipfile.ZipFile(pkg) as zf:
        if any(n.endswith(".wrapper.cpp") for n in zf.namelist()):
            return None
    return "torch 2.6 archive layout (one <hash>.cpp, no .wrapper.cpp, no root folder) is rejected, issue 8"


def refresh(out_dir: Path, names):
    """Recompute each manifest's expect from its spec, saved error and package: no build, no run."""
    for mf in sorted(out_dir.glob("*/manifest.json")):
        man = json.loads(mf.read_text())
        if names and man["name"] not in names:
            continue
        man["expect"] = expect_for(man["name"], man["device"], man["error"], mf.parent / f"{man['name']}.pt2")
        mf.write_text(json.dumps(man, indent=2) + "\n")
        print(f"{mf.parent.parent.name}/{man['name']}: kernel={man['expect']['kernel']} gap={man['expect'].get('known_gap')}")


def _known_configs(configs):
    """Drop Inductor options this torch build does not have (older builds lack provenance tracking)."""
    import torch._inductor.config as cfg

    out = {}
    for key, value in configs.items():
        obj = cfg
        try:
            for part in key.split("."):
                obj = getattr(obj, part)
        except AttributeError:
            print(f"  (torch {torch.__version__} has no inductor option {key}: left out)", flush=True)
            continue
        out[key] = value
    return out


def _extern_failed(stderr):
    """The real log names an extern call: a CPU exception at it, an ATen kernel assert, or a swallowed one."""
    return bool(
        re.search(r"Error: aoti_torch_\w+\(.*API call failed", stderr)
        or "Exception in aoti_torch" in stderr
        or re.search(r"/ATen/native/\S+\.cu:\d+: \w+: block: \[", stderr)
    )


def _unchecked_extern(pkg: Path, fn: str) -> bool:
    """The wrapper calls ``fn`` as a bare statement, not inside AOTI_TORCH_ERROR_CODE_CHECK(...)."""
    with zipfile.ZipFile(pkg) as zf:
        for name in zf.namelist():
            if name.endswith(".cpp") and "/aotinductor/" in name:
                if re.search(r"^\s*" + fn + r"\(", zf.read(name).decode("utf-8", "replace"), re.M):
                    return True
    return False


def _deflate(pkg: Path):
    """Re-store every member deflated: the same names and bytes, a third of the size on disk.

    AOTI writes the archive uncompressed; the .so (weights included) dominates it.  pt2-inspect
    reads members through zipfile, so the compression method does not matter to it, and the
    working tree has to stay small enough to travel to the GPU box.
    """
    tmp = pkg.with_suffix(".tmp")
    with zipfile.ZipFile(pkg) as zin, zipfile.ZipFile(tmp, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            info.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(info, data, compresslevel=9)
    tmp.replace(pkg)


def build_two_models(dev, pkg: Path):
    from torch.export.pt2_archive._package import package_pt2

    enc, dec = Encoder().to(dev).eval(), Decoder().to(dev).eval()
    enc_args = (_ids(0, 256, (2, 8), dev),)
    enc_dims = ({0: Dim("batch", min=1, max=64), 1: Dim("seq", min=1, max=512)},)
    dec_args = (torch.randn(12, 16, device=dev), _ids(0, 12, (5,), dev))
    dec_dims = ({0: Dim("mem", min=2, max=4096)}, {0: Dim("picks", min=1, max=4096)})
    ep_enc = _export(enc, enc_args, enc_dims)
    ep_dec = _export(dec, dec_args, dec_dims)
    opts = {"aot_inductor.package": True}
    files_enc = torch._inductor.aot_compile(ep_enc.module(), enc_args, options=opts)
    files_dec = torch._inductor.aot_compile(ep_dec.module(), dec_args, options=opts)
    package_pt2(str(pkg), aoti_files={"encoder": files_enc, "decoder": files_dec})
    return {
        "model_class": "Encoder, Decoder",
        "model_source": _source(Encoder) + "\n\n" + _source(Decoder),
        "models": {
            "encoder": {"inputs": [{"shape": [2, 8], "dtype": "int64"}], "dynamic_shapes": _dims_json(enc_dims)},
            "decoder": {
                "inputs": [{"shape": [12, 16], "dtype": "float32"}, {"shape": [5], "dtype": "int64"}],
                "dynamic_shapes": _dims_json(dec_dims),
            },
        },
        "inductor_configs": {},
        "exported_program_packaged": False,
    }


def _triton_version():
    try:
        import triton

        return triton.__version__
    except Exception:
        return None


# --------------------------------------------------------------------------
# Running the trigger (in a subprocess: a failing package may abort)
# --------------------------------------------------------------------------


def _trigger_args(name, dev):
    if name == "two_models":
        return (torch.randn(6, 16, device=dev), torch.tensor([0, 9, 2], device=dev))
    return SPECS[name]["trigger"](dev)


def trigger_main(name, dev, pkg):
    """Runs in the child process: load the package and call it with the trigger input."""
    from torch._inductor.package import load_package

    model_name = SPECS[name]["expect"].get("model", "model")
    m = load_package(pkg, model_name)
    out = m(*_trigger_args(name, dev))
    if dev == "cuda":
        torch.cuda.synchronize()
    print("trigger ran without error:", [tuple(o.shape) for o in (out if isinstance(out, (list, tuple)) else [out])])


def run_trigger(name, dev, pkg):
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    env.pop("AOTI_RUNTIME_CHECK_INPUTS", None)
    proc = subprocess.run(
        [sys.executable, __file__, "--trigger", name, "--device", dev, "--package", str(pkg)],
        capture_output=True, text=True, env=env, timeout=600,
    )
    text = proc.stderr
    # Keep the error, drop warnings unrelated to it; cap the size.
    lines = [l for l in text.splitlines() if "UserWarning" not in l and "_conversion_method_template" not in l]
    text = "\n".join(lines)
    if len(text) > 20000:
        text = text[:4000] + "\n…\n" + text[-16000:]
    return {"returncode": proc.returncode, "stderr": text, "stdout": proc.stdout[-2000:]}


# --------------------------------------------------------------------------
# Ground truth for "which kernel failed", independent of pt2-inspect
# --------------------------------------------------------------------------


def failing_kernel(err, pkg: Path):
    """Name the kernel the real error came from, by the debugging guide's own means.

    CPU: ``Exception raised from <kernel> at …kernel.cpp:N``.  CUDA: the ``.py``
    path of the device assert is compared with the ``assertFile`` byte array in
    each cubin; the wrapper's ``loadKernel("…/<stem>.cubin", "<kernel>", …)``
    names the kernel of that cubin.
    """
    text = err["stderr"]
    m = re.search(r"(\S+\.py):(\d+): \w+: block: \[", text)
    if not m:
        # 2.13: …/<hash>.kernel.cpp:N; 2.6: the kernels sit in …/<hash>.cpp (no ATen source file).
        m = re.search(r"Exception raised from (\w+) at \S+/(?:\w+\.kernel|[a-z0-9]{40,})\.cpp:\d+", text)
        return m.group(1) if m else None
    py = m.group(1).encode()
    with zipfile.ZipFile(pkg) as zf:
        names = zf.namelist()
        for name in names:
            if not name.endswith(".cubin"):
                continue
            data = zf.read(name)
            for arr in re.finditer(rb"assertFile_\d+\[\d+\] = \{([\d, ]+)\}", data):
                s = bytes(int(x) for x in arr.group(1).split(b",")).rstrip(b"\0")
                if s != py:
                    continue
                stem = Path(name).stem
                model_dir = name.rsplit("/", 1)[0]
                for w in names:
                    if w.startswith(model_dir) and w.endswith(".wrapper.cpp"):
                        k = re.search(r'loadKernel\("[^"]*' + stem + r'\.cubin", "(\w+)"', zf.read(w).decode())
                        if k:
                            return k.group(1)
                return stem
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--only", nargs="*", help="sample names to build (default: all)")
    ap.add_argument("--out", type=Path, help="output folder (default: sample_packages/<device>)")
    ap.add_argument("--refresh", action="store_true",
                    help="only recompute the manifests' expect (spec + saved error + package); builds nothing")
    ap.add_argument("--trigger", help=argparse.SUPPRESS)
    ap.add_argument("--package", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.trigger:
        trigger_main(a.trigger, a.device, a.package)
        return
    out = a.out or HERE / a.device
    out.mkdir(parents=True, exist_ok=True)
    if a.refresh:
        refresh(out, a.only)
        return
    names = a.only or list(SPECS)
    for name in names:
        m = build_one(name, a.device, out)
        print(f"{name}: {m['package_bytes']} bytes, trigger rc={m['error']['returncode']}, kernel={m['expect']['kernel']}",
              flush=True)


if __name__ == "__main__":
    main()
