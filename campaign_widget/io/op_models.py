"""Work models of PyTorch operators: FLOPs and bytes from the shapes a profiler recorded.

``work(name, dims, types, concrete)`` gives ``(flops, bytes, output_counted)`` for one operator call from
its ``Input Dims`` (one shape per input, None for what is not a plain tensor), ``Input type`` (the element
type of each input, as Kineto spells it) and ``Concrete Inputs`` (scalar arguments as text), or None for a
volume the model cannot know. Bytes are the algorithmic minimum: every tensor input read once and the
output written once (caches ignored); ``output_counted`` is False when the output's size is unknown and
only the inputs are counted.

The models, by family (N: elements of the output, or of the first input where said):

- matrix products (``mm, addmm, bmm, baddbmm, matmul, linear``): 2·M·K·N per product, as PyTorch's
  ``with_flops`` counts (a bias add is not counted).
- convolutions (``conv1d/2d/3d, convolution, _convolution``): 2·N·C_out·C_in/groups·∏kernel·∏output,
  stride, padding, dilation, groups and transposition from ``Concrete Inputs``; ``convolution_backward``:
  the forward's FLOPs for each of grad-input and grad-weight it computes.
- scaled-dot-product attention (``scaled_dot_product_attention`` and its flash, efficient and cuDNN
  kernels; q, k, v as ``[..., L, E]``, ``[..., S, E]``, ``[..., S, Ev]``): 2·batch·L·S·(E + Ev); their
  backward: 2.5× that (five products instead of two).
- elementwise operators (``add, mul, relu, gelu, where, …`` and their in-place and backward forms):
  1 per output element; inputs broadcast to the output.
- softmax and log-softmax (and their backward): 5 per element (max, subtract, exp, sum, divide).
- norms (layer, batch, group, RMS, and their backward): 5 per element of the first input.
- reductions (``sum, mean, amax, max, norm, var, std, …``): 1 per input element; output size unknown.
- embedding lookups: 0 FLOPs; indices read, the gathered rows read and written.
- copies and casts (``copy_, clone, contiguous, to, _to_copy``): 0 FLOPs, input read and output
  written; ``fill_, zero_``: the output written.
- views (``view, t, transpose, permute, expand, …``): nothing at all.

Any other operator: None (unknown).
"""

from __future__ import annotations

import json

ELEMENT_BYTES = {
    "float": 4,
    "double": 8,
    "c10::Half": 2,
    "c10::BFloat16": 2,
    "long int": 8,
    "long": 8,
    "int": 4,
    "short int": 2,
    "signed char": 1,
    "unsigned char": 1,
    "bool": 1,
    "c10::complex<float>": 8,
    "c10::complex<double>": 16,
    "c10::complex<c10::Half>": 4,
    "c10::Float8_e4m3fn": 1,
    "c10::Float8_e5m2": 1,
    "c10::Float8_e4m3fnuz": 1,
    "c10::Float8_e5m2fnuz": 1,
    "unsigned short": 2,
    "unsigned int": 4,
    "unsigned long": 8,
}
NOT_TENSORS = {
    "",
    "Scalar",
    "ScalarList",
    "TensorList",
    "GenericList",
    "None",
    "Device",
    "Layout",
    "ScalarType",
    "MemoryFormat",
    "bool_list",
    "int_list",
}
MAX_DIM = 1 << 40  # a tensor dimension above this is not a shape (FLOPs and bytes then unknown)


def _aten(*names: str) -> frozenset[str]:
    return frozenset("aten::" + n for n in names)


MATMUL_OPS = _aten("mm", "matmul", "bmm", "addmm", "linear", "baddbmm")
CONV_OPS = _aten("conv1d", "conv2d", "conv3d", "convolution", "_convolution")
CONV_BACKWARD_OPS = _aten("convolution_backward")
SDPA_OPS = _aten(
    "scaled_dot_product_attention",
    "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_efficient_attention",
    "_scaled_dot_product_cudnn_attention",
    "_scaled_dot_product_attention_math",
    "_scaled_dot_product_flash_attention_for_cpu",
)
SDPA_BACKWARD_OPS = _aten(
    "_scaled_dot_product_flash_attention_backward",
    "_scaled_dot_product_efficient_attention_backward",
    "_scaled_dot_product_cudnn_attention_backward",
    "_scaled_dot_product_flash_attention_for_cpu_backward",
)
VIEW_OPS = _aten(
    "view", "t", "transpose", "permute", "expand", "as_strided", "flatten", "unflatten", "squeeze", "unsqueeze",
    "detach", "alias", "slice", "select", "narrow", "empty", "empty_strided", "empty_like", "resolve_conj",
    "resolve_neg", "_unsafe_view", "lift_fresh", "split", "chunk", "unbind", "expand_as", "view_as", "numpy_T",
    "reshape", "_reshape_alias", "contiguous_",
)  # fmt: skip
ELEMENTWISE_OPS = _aten(
    "relu", "relu_", "relu6", "gelu", "gelu_", "silu", "silu_", "sigmoid", "sigmoid_", "tanh", "tanh_", "exp",
    "exp_", "log", "neg", "abs", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "erf", "square", "sign", "sgn",
    "clamp", "clamp_", "clamp_min", "clamp_min_", "clamp_max", "threshold", "threshold_", "hardtanh", "hardtanh_",
    "hardswish", "hardsigmoid", "mish", "leaky_relu", "leaky_relu_", "elu", "dropout", "native_dropout",
    "bernoulli_", "add", "add_", "sub", "sub_", "rsub", "mul", "mul_", "div", "div_", "pow", "pow_", "where",
    "maximum", "minimum", "addcmul", "addcmul_", "addcdiv", "addcdiv_", "lerp_", "eq", "ne", "lt", "gt", "le",
    "ge", "logical_not", "logical_and", "masked_fill", "masked_fill_", "threshold_backward", "gelu_backward",
    "silu_backward", "sigmoid_backward", "tanh_backward", "hardtanh_backward", "native_dropout_backward",
    "_foreach_add_", "mul_scalar",
)  # fmt: skip
SOFTMAX_OPS = _aten(
    "softmax", "_softmax", "log_softmax", "_log_softmax", "_softmax_backward_data", "_log_softmax_backward_data"
)
NORM_OPS = _aten(
    "layer_norm", "native_layer_norm", "batch_norm", "native_batch_norm", "_batch_norm_impl_index",
    "cudnn_batch_norm", "_native_batch_norm_legit", "_native_batch_norm_legit_no_training", "group_norm",
    "native_group_norm", "instance_norm", "rms_norm", "_fused_rms_norm", "native_layer_norm_backward",
    "native_batch_norm_backward", "cudnn_batch_norm_backward", "native_group_norm_backward",
)  # fmt: skip
REDUCTION_OPS = _aten(
    "sum", "mean", "amax", "amin", "max", "min", "norm", "linalg_vector_norm", "prod", "var", "std", "var_mean",
    "std_mean", "argmax", "argmin", "all", "any", "logsumexp", "cumsum", "nll_loss", "nll_loss_forward",
)  # fmt: skip
EMBEDDING_OPS = _aten("embedding")
COPY_OPS = _aten("copy_", "clone", "contiguous", "to", "_to_copy")
WRITE_OPS = _aten("fill_", "zero_", "zeros", "ones", "full", "zeros_like", "ones_like")
SOFTMAX_FLOPS = 5
NORM_FLOPS = 5
SDPA_BACKWARD_FACTOR = 2.5


def work(name: str, dims, types=None, concrete=None):
    """``(flops, bytes, output_counted)`` of one call of operator ``name``; each volume None when unknown.

    ``dims``: one shape (a list of ints) or None per input; ``types``: the element type per input (or
    None); ``concrete``: the ``Concrete Inputs`` texts (or None).
    """
    types = types if types is not None else [None] * len(dims)
    try:
        flops, out = _model(name, dims, concrete)
    except OverflowError:
        return None, None, False
    if flops is None and out is None and name not in VIEW_OPS:
        return None, None, False
    if name in VIEW_OPS:
        return 0.0, 0.0, True
    nbytes, counted = _bytes(name, dims, types, out)
    return (None if flops is None else float(flops)), nbytes, counted


def compute_flops(name: str, dims, concrete=None) -> float | None:
    """FLOPs of one operator call from its input shapes (None when not computable)."""
    return work(name, dims, None, concrete)[0]


def estimate_bytes(name: str, dims, types, concrete=None):
    """``(bytes, output_counted)`` of one operator call from its input shapes and types, or None."""
    _, nbytes, counted = work(name, dims, types, concrete)
    return None if nbytes is None else (nbytes, counted)


# -- FLOPs and output shapes ----------------------------------------------------------------------------------


def _model(name, dims, concrete):
    """(flops or None, output shape or None), or (None, None) for an operator without a model."""
    tensors = [d for d in dims if d is not None]
    if name in MATMUL_OPS:
        shapes = _matmul_shapes(name, dims)
    elif name in CONV_OPS:
        shapes = _conv_shapes(name, dims, concrete)
    elif name in CONV_BACKWARD_OPS:
        return _conv_backward(dims, concrete), None
    elif name in SDPA_OPS or name in SDPA_BACKWARD_OPS:
        return _sdpa(name, dims)
    elif name in ELEMENTWISE_OPS:
        out = _broadcast_all(tensors)
        if out is not None and name.endswith("_") and tensors:
            out = tensors[0]
        return (None if out is None else _prod(out)), out
    elif name in SOFTMAX_OPS:
        return (SOFTMAX_FLOPS * _prod(tensors[0]), tensors[0]) if tensors else (None, None)
    elif name in NORM_OPS:
        return (NORM_FLOPS * _prod(tensors[0]), tensors[0]) if tensors else (None, None)
    elif name in REDUCTION_OPS:
        return (_prod(tensors[0]), None) if tensors else (None, None)
    elif name in EMBEDDING_OPS:
        if len(dims) >= 2 and _is(dims[0], 2) and dims[1] is not None:
            return 0, list(dims[1]) + [dims[0][1]]
        return None, None
    elif name in COPY_OPS or name in WRITE_OPS:
        return (0, tensors[0]) if tensors else (None, None)
    else:
        return None, None
    return (None, None) if shapes is None else shapes


def _bytes(name, dims, types, out):
    """(bytes, output_counted) from the inputs' sizes and the output shape, or (None, False)."""
    total, first_type, sizes = 0, None, []
    for d, t in zip(dims, types):
        if not isinstance(t, (str, type(None))):
            return None, False
        if d is None or t in NOT_TENSORS:
            continue
        if t is None or t not in ELEMENT_BYTES:
            return None, False  # a tensor of unknown element size: no estimate rather than a wrong one
        first_type = first_type or t
        sizes.append((d, ELEMENT_BYTES[t]))
        total += _prod(d) * ELEMENT_BYTES[t]
    if first_type is None:
        return None, False
    element = ELEMENT_BYTES[first_type]
    if name in EMBEDDING_OPS and out is not None:
        (_, w_size), (idx, i_size) = sizes[0], sizes[1]
        return float(_prod(idx) * i_size + 2 * _prod(out) * w_size), True
    if name in WRITE_OPS and out is not None:
        return float(_prod(out) * element), True
    if name == "aten::copy_" and len(sizes) >= 2:
        return float(_prod(sizes[0][0]) * sizes[0][1] + _prod(sizes[1][0]) * sizes[1][1]), True
    if out is None:
        return float(total), False
    return float(total + _prod(out) * element), True


def _prod(xs) -> int:
    p = 1
    for x in xs:
        p *= x
    return p


def _is(d, rank) -> bool:
    return d is not None and len(d) == rank


def _broadcast(a, b):
    out = []
    for x, y in zip(reversed([1] * (len(b) - len(a)) + list(a)), reversed([1] * (len(a) - len(b)) + list(b))):
        if x != y and 1 not in (x, y):
            return None
        out.append(max(x, y))
    return list(reversed(out))


def _broadcast_all(tensors):
    if not tensors:
        return None
    out = list(tensors[0])
    for s in tensors[1:]:
        out = _broadcast(out, s) or out
    return out


def _matmul_shapes(name, dims):
    """(flops, output shape) of a matrix product, or None."""
    t = dims
    if name == "aten::mm" and len(t) >= 2 and _is(t[0], 2) and _is(t[1], 2):
        (m, k), (k2, n) = t[0], t[1]
        return (2 * m * k * n, [m, n]) if k == k2 else None
    if name == "aten::addmm" and len(t) >= 3 and _is(t[1], 2) and _is(t[2], 2):
        (m, k), (k2, n) = t[1], t[2]
        return (2 * m * k * n, [m, n]) if k == k2 else None
    if name == "aten::bmm" and len(t) >= 2 and _is(t[0], 3) and _is(t[1], 3):
        (b, m, k), (b2, k2, n) = t[0], t[1]
        return (2 * b * m * k * n, [b, m, n]) if k == k2 and b == b2 else None
    if name == "aten::baddbmm" and len(t) >= 3 and _is(t[1], 3) and _is(t[2], 3):
        (b, m, k), (b2, k2, n) = t[1], t[2]
        return (2 * b * m * k * n, [b, m, n]) if k == k2 and b == b2 else None
    if name == "aten::linear" and len(t) >= 2 and t[0] and _is(t[1], 2):
        x, (n, k) = t[0], t[1]
        if x[-1] != k:
            return None
        return 2 * _prod(x[:-1]) * k * n, list(x[:-1]) + [n]
    if name == "aten::matmul" and len(t) >= 2 and t[0] and t[1]:
        a, b = list(t[0]), list(t[1])
        squeeze_a, squeeze_b = len(a) == 1, len(b) == 1
        if squeeze_a:
            a = [1] + a
        if squeeze_b:
            b = b + [1]
        m, k = a[-2], a[-1]
        k2, n = b[-2], b[-1]
        if k != k2:
            return None
        batch = _broadcast(a[:-2], b[:-2])
        if batch is None:
            return None
        out = batch + ([] if squeeze_a else [m]) + ([] if squeeze_b else [n])
        return 2 * _prod(batch) * m * k * n, out
    return None


def _sdpa(name, dims):
    """(flops, output shape) of scaled-dot-product attention from q, k, v (the backward: from its
    grad_out, q, k, v), or (None, None)."""
    offset = 1 if name in SDPA_BACKWARD_OPS else 0
    if len(dims) < offset + 3:
        return None, None
    q, k, v = dims[offset : offset + 3]
    if q is None or k is None or v is None or len(q) < 2 or len(k) != len(q) or len(v) != len(q):
        return None, None
    batch = _broadcast(q[:-2], k[:-2])
    if batch is None or k[-1] != q[-1] or v[-2] != k[-2]:
        return None, None
    length, source, e, ev = q[-2], k[-2], q[-1], v[-1]
    flops = 2 * _prod(batch) * length * source * (e + ev)
    if offset:
        return SDPA_BACKWARD_FACTOR * flops, None
    return flops, list(batch) + [length, ev]


def _ints(text, count):
    """``"[1, 1]"`` or ``"2"`` from Concrete Inputs as ``count`` ints, or None."""
    if not isinstance(text, str) or text == "" or len(text) > 1000:
        return None
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return [value] * count if abs(value) <= MAX_DIM else None
    if isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) and abs(v) <= MAX_DIM for v in value
    ):
        if len(value) == 1:
            return value * count
        return value if len(value) == count else None
    return None


def _conv_shapes(name, dims, concrete):
    """(flops, output shape) of a convolution, or None when shapes or parameters are missing."""
    if len(dims) < 2 or dims[0] is None or dims[1] is None or concrete is None:
        return None
    x, w = dims[0], dims[1]
    spatial = len(x) - 2
    if spatial < 1 or len(w) != len(x):
        return None
    if name in ("aten::conv1d", "aten::conv2d", "aten::conv3d"):
        positions = {"stride": 3, "padding": 4, "dilation": 5, "groups": 6}
        transposed, output_padding = False, [0] * spatial
    else:  # aten::convolution / aten::_convolution
        positions = {"stride": 3, "padding": 4, "dilation": 5, "groups": 8}
        transposed = concrete[6] == "True" if len(concrete) > 6 else False
        output_padding = _ints(concrete[7], spatial) if len(concrete) > 7 else [0] * spatial
    if len(concrete) <= positions["groups"]:
        return None
    stride = _ints(concrete[positions["stride"]], spatial)
    dilation = _ints(concrete[positions["dilation"]], spatial)
    groups = _ints(concrete[positions["groups"]], 1)
    pad_text = concrete[positions["padding"]]
    if pad_text in ("same", "valid"):
        padding = None if pad_text == "same" else [0] * spatial
    else:
        padding = _ints(pad_text, spatial)
        if padding is None:
            return None
    if stride is None or dilation is None or groups is None or output_padding is None or groups[0] <= 0:
        return None
    if min(stride) < 1 or min(dilation) < 1 or min(output_padding) < 0 or (padding and min(padding) < 0):
        return None  # stride 0 or negative padding: not a convolution PyTorch would run
    g = groups[0]
    n, c_in = x[0], x[1]
    kernel = w[2:]
    if not transposed:
        c_out = w[0]
        if padding is None:  # "same"
            out = list(x[2:])
        else:
            out = [
                (x[2 + i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(spatial)
            ]
        if any(o <= 0 for o in out):
            return None
        return 2 * n * c_out * (c_in // g) * _prod(kernel) * _prod(out), [n, c_out] + out
    c_out = w[1] * g
    if padding is None:
        return None
    out = [
        (x[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel[i] - 1) + output_padding[i] + 1
        for i in range(spatial)
    ]
    return 2 * n * c_in * (c_out // g) * _prod(kernel) * _prod(x[2:]), [n, c_out] + out


def _conv_backward(dims, concrete):
    """FLOPs of ``convolution_backward(grad_out, input, weight, bias_sizes, stride, padding, dilation,
    transposed, output_padding, groups, output_mask)``: the forward's for each gradient computed."""
    if len(dims) < 3 or concrete is None or len(concrete) < 11:
        return None
    forward = [None, None, None, None, None, None, None, None, None]
    forward_concrete = ["", "", "", concrete[4], concrete[5], concrete[6], concrete[7], concrete[8], concrete[9]]
    forward[0], forward[1] = dims[1], dims[2]
    shapes = _conv_shapes("aten::convolution", forward, forward_concrete)
    if shapes is None:
        return None
    try:
        mask = json.loads(concrete[10].lower()) if isinstance(concrete[10], str) else None
    except ValueError:
        mask = None
    computed = sum(1 for m in (mask or [True, True])[:2] if m is True)
    return shapes[0] * computed


def exact_flops(name: str, dims, concrete=None):
    """FLOPs of one operator call in the dims' own number type: ints, or a tracer's symbolic sizes, which
    then stay symbolic (``Workload.from_torch`` with dynamic dimensions); None when the model cannot know."""
    try:
        flops, _ = _model(name, dims, concrete)
    except OverflowError:
        return None
    return 0 if name in VIEW_OPS else flops
