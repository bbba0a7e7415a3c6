"""The models of the sample packages (torch needed): one nn.Module per sample, named by specs.py.

A manifest's ``model_source`` is the dedented source of its class here, so a class's text is part of
the ground truth: edit one and rebuild its samples (``python sample_packages/build.py --only NAME``).
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F



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


class TwoIndexModel(nn.Module):
    """One table indexed by two index inputs, a then b: an empty table fails a's check first, a value of b past the
    table only b's (issue 35 §2: the run that tells those hypotheses apart)."""

    def forward(self, x, a, b):
        return x[a] * 2.0, x[b] * 3.0


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
