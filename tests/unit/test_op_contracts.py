"""The ops' value contracts (one table: inspector/dialects/op_contracts.py) and a proxy-executor call's lists, read
as torch 2.14.1 writes them (the statement is the roi_head sample's, wrapper.cpp line 1073)."""

from inspector.dialects.op_contracts import CONTRACTS, DIM_ARG, INDEXING_OPS, contract_of
from inspector.model import Expr
from inspector.parse.proxy_call import extern_nodes, proxy_args


def test_roi_align_contract_names_the_batch_index_and_nothing_checks_it():
    c = contract_of("torchvision::roi_align.default")
    assert c.arg_names == ("input", "rois", "spatial_scale", "pooled_height", "pooled_width", "sampling_ratio",
                           "aligned")
    batch = next(x for x in c.contracts if "rois[:, 0]" in x.condition)
    assert batch.condition == "0 <= rois[:, 0] < input.size(0)" and batch.checked_by_cpu == "nothing"
    assert batch.effect_cuda == "illegal_memory_access"
    assert {x.arg for x in contract_of("torchvision::nms").contracts} == {"dets", "scores"}


def test_the_indexing_ops_table_is_the_one_match_used():
    assert INDEXING_OPS == {
        "embedding": (0, 1), "_embedding_bag": (0, 1), "embedding_bag": (0, 1), "index_select": (0, 2),
        "gather": (0, 2), "scatter": (0, 2), "scatter_add": (0, 2), "scatter_reduce": (0, 2),
        "index_put": (0, 1), "_index_put_impl": (0, 1), "take": (0, 1), "index": (0, 1), "index_add": (0, 2),
        "index_copy": (0, 2)}
    assert DIM_ARG == {"gather": 1, "scatter": 1, "scatter_add": 1, "scatter_reduce": 1, "index_select": 1,
                       "index_add": 1, "index_copy": 1}
    for op, (table, index) in INDEXING_OPS.items():
        names = CONTRACTS[op].arg_names
        assert CONTRACTS[op].contracts[0].arg == names[index] and CONTRACTS[op].contracts[0].against == names[table]


def test_proxy_call_lists_whichever_way_the_arguments_were_split():
    whole = ("proxy_executor", "0", "3", "std::array<int64_t, 3>{4, 4, 2}.data()", "3",
             "std::array<AtenTensorHandle, 3>{buf4, arg5_1, buf5}.data()")
    split = ("proxy_executor", "0", "3", "std::array < int64_t", "3 > {4, 4, 2}.data()", "3",
             "std::array < AtenTensorHandle", "3 > {buf4, arg5_1, buf5}.data()")  # the statement grammar's split
    for args in (whole, split):
        pa = proxy_args(tuple(Expr(a) for a in args))
        assert (pa.node_index, pa.ints, pa.tensors) == (0, ("4", "4", "2"), ("buf4", "arg5_1", "buf5"))
    view = ("proxy_executor", "1", "2", "std::array<int64_t, 2>{s45, s84}.data()", "2",
            "std::array<AtenTensorHandle, 2>{wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(pos_embed, 4, "
            "int_array_0, int_array_1, 32L)), buf3}.data()")
    assert proxy_args(tuple(Expr(a) for a in view)).tensors[1] == "buf3"


def test_extern_nodes_say_which_arguments_the_call_passes():
    doc = {"nodes": [{"name": "buf5", "node": {"target": "torchvision::roi_align", "inputs": [
        {"name": "input", "arg": {"as_tensor": {"name": "buf4"}}, "kind": 1},
        {"name": "spatial_scale", "arg": {"as_float": 0.5}, "kind": 1},
        {"name": "pooled_height", "arg": {"as_sym_int": {"as_name": "s9"}}, "kind": 1},
        {"name": "scales", "arg": {"as_none": True}, "kind": 1}],
        "outputs": [{"as_tensor": {"name": "buf5"}}], "metadata": {}}}]}
    (n,) = extern_nodes(doc)
    assert n.target == "torchvision::roi_align" and not n.python_custom_op
    assert [(a.name, a.passed, a.value) for a in n.inputs] == [
        ("input", "tensor", "buf4"), ("spatial_scale", None, 0.5), ("pooled_height", "int", "s9"), ("scales", None, None)]
    assert extern_nodes("not a dict") == [] and extern_nodes({"nodes": [{"node": {}}]})[0].target == "?"
