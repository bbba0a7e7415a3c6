"""The graph stage: `build` links inputs -> dims -> symbols -> call arguments -> kernel params -> tmps -> assertions,
and kernels -> buffers -> kernels -> FX nodes, in `minigraph`'s small multigraph (networkx's interface); `ids` spells
every node id; `export` writes the graph (dot, GraphML, JSON) and grows the neighbourhood of one thing."""
