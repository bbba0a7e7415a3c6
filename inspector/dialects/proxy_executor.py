"""How a package calls an op through the proxy executor (a custom op such as ``torchvision::roi_align``, or an ATen op
no C shim covers), seen on torch 2.13 and 2.14.1 CPU:

    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_proxy_executor_call_function(proxy_executor, 0, 3,
        std::array<int64_t, 3>{4, 4, 2}.data(), 3, std::array<AtenTensorHandle, 3>{buf4, arg5_1, buf5}.data()));

The arguments: the proxy executor, the op's node index into ``<hash>.wrapper.json``'s ``nodes``, how many ints and
the ints, how many tensors and the tensors.  The JSON node names the op (``node.target``) and each argument of its
schema in order (``inputs[i].name``, ``inputs[i].arg``: ``{"as_tensor": {"name": "buf4"}}``, ``{"as_int": 4}``,
``{"as_float": 0.5}``, …).  The executor (torch/csrc/inductor/aoti_torch/oss_proxy_executor.cpp) takes the
arguments of the dynamic kinds, in schema order, from the call's two lists: a tensor or a list of tensors from the
tensor list, an int (or SymInt) or a list of ints from the int list; every other kind (float, bool, str, dtype,
None, …) it fills from the JSON.  The op's outputs follow its inputs in the tensor list (``buf5`` above)."""

from __future__ import annotations

PROXY_CALL = "aoti_torch_proxy_executor_call_function"
# the empty handle made for each output of the call just before it (`// output buffer`): the op fills it
NEW_HANDLE = "aoti_torch_new_uninitialized_tensor"

# positions of the call's arguments
NODE_INDEX, INT_COUNT = 1, 2  # then the ints (a braced list), the tensor count, the tensors (a braced list)

# the JSON argument kinds the call passes, and from which list: "tensor" | "int"
TENSOR_KINDS = ("as_tensor", "as_optional_tensor")
TENSOR_LIST_KINDS = ("as_tensors", "as_optional_tensors")
INT_KINDS = ("as_int", "as_sym_int")
INT_LIST_KINDS = ("as_ints", "as_sym_ints")

# the member that holds the nodes (one per model, beside its wrapper.cpp)
NODES_SUFFIX = ".wrapper.json"
