"""`pt2-inspect graph`: the package's graph (or the neighbourhood of one thing) as DOT, GraphML or JSON."""

from __future__ import annotations

import sys

from ..errors import UsageError
from ._args import MODEL_WHICH, add_json, add_model, add_output, add_package, command_parser
from ._io import check_output_path, write_output

GRAPH_HELP = """Export the package's graph (inputs, symbols, buffers, kernels, call sites, kernel
params, tmp values, assertions, FX nodes; edges defines/aliases/binds/reads/
writes/…) for other tools.

A whole package is large (a transformer: ~1,300 nodes, which `dot` takes minutes
to lay out): draw the neighbourhood of one thing with --around. It takes a
kernel name, an assertion (KERNEL:LINE), an input (its index or wrapper name,
e.g. 0 or arg0_1), a symbol (s59), a buffer (buf0), an FX node, or any node id
of the graph (kernel:NAME, input:0, sym:s59…), and keeps the nodes within
--depth edges of it (either direction).

examples:
  pt2-inspect graph sample_packages/cuda/jagged/jagged.pt2 --around triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2 --format dot | dot -Tsvg > k.svg
  pt2-inspect graph sample_packages/cuda/jagged/jagged.pt2 --around triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2:38 --depth 3
  pt2-inspect graph sample_packages/cuda/jagged/jagged.pt2 --around arg0_1 --json | jq '.nodes | length'
  pt2-inspect graph sample_packages/cuda/jagged/jagged.pt2 --format graphml -o jagged.graphml
"""



def add_parser(sub):
    g = command_parser(sub, "graph", "export the graph (or --around one thing) as DOT, GraphML or JSON", GRAPH_HELP)
    add_package(g)
    g.add_argument("--format", choices=["dot", "graphml", "json"], default="dot")
    add_json(g, "same as --format json (node-link JSON)")
    g.add_argument("--around", metavar="THING", help="only the neighbourhood of a kernel, KERNEL:LINE assertion, input, "
                   "symbol, buffer, FX node or node id")
    g.add_argument("--depth", type=int, default=2, metavar="N", help="with --around: edges away to keep (default 2)")
    add_model(g, MODEL_WHICH)
    add_output(g, "write here instead of stdout")
    return g


def run(a) -> int:
    from ..graph.export import neighbourhood_of, to_dot, to_graphml, to_json
    from ..package import open_package

    if a.output:
        check_output_path(a.output)
    if a.depth < 0:
        raise UsageError("--depth must be 0 or more")
    fmt = "json" if a.json else a.format
    with open_package(a.package) as pkg:
        # --around: a lazy model grown around the thing until its neighbourhood is complete, not the whole parse
        g = neighbourhood_of(pkg, a.model, a.around, a.depth) if a.around else pkg.graph(a.model)
        if a.around:
            if g.graph["truncated"]:
                print(f"pt2-inspect: note: kept the {g.number_of_nodes()} nodes nearest {g.graph['around']} "
                      f"(more lie within --depth {a.depth}; a smaller --depth shows all of a nearer ring)", file=sys.stderr)
        elif g.number_of_nodes() > 300:
            print(f"pt2-inspect: note: the whole graph has {g.number_of_nodes()} nodes and {g.number_of_edges()} edges; "
                  "`dot` needs minutes for that: draw one part with --around KERNEL|KERNEL:LINE|INPUT [--depth N]",
                  file=sys.stderr)
        text = {"dot": to_dot, "graphml": to_graphml, "json": to_json}[fmt](g)
    if a.output:
        write_output(a.output, text)
    else:
        sys.stdout.write(text)
    return 0
