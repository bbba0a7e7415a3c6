import os, sys, torch
from transformers import GPT2Config, GPT2LMHeadModel, BertConfig, BertModel
torch.manual_seed(0)
which = "gpt2"
cfg = GPT2Config(vocab_size=100, n_positions=32, n_embd=32, n_layer=2, n_head=2, use_cache=False)
m = GPT2LMHeadModel(cfg).eval()
class W(torch.nn.Module):
    def __init__(s): super().__init__(); s.m = m
    def forward(s, input_ids): return s.m(input_ids=input_ids, return_dict=False)[0]
ex = (torch.randint(0, 100, (2, 16)),)
ds = {"input_ids": {1: torch.export.Dim("seq", min=2, max=128)}}
w = W().eval()
with torch.no_grad():
    ep = torch.export.export(w, ex, dynamic_shapes=ds, strict=False)
    out = torch._inductor.aoti_compile_and_package(ep, package_path=sys.argv[1])
print("built", out)
