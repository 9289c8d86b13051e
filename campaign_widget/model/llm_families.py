"""The model families a transformer config may be of, and how each one's ``config.json`` is read
(docs/llm-inference.md#model-families): its fields, its attention and MLP layout, its biases, whether
attention and MLP run in parallel, and whether the LM head is the embedding table."""

from __future__ import annotations

import json
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import WorkloadError, check_flag, short_repr

CONFIG_DIR = Path(__file__).parent / "transformer_configs"

# the config fields each quantity is read from (the first one present wins)
_LLAMA_FIELDS = {
    "hidden": ("hidden_size",),
    "heads": ("num_attention_heads",),
    "layers": ("num_hidden_layers",),
    "intermediate": ("intermediate_size",),
    "vocab": ("vocab_size",),
}
_GPT_FIELDS = {"hidden": ("n_embd",), "heads": ("n_head",), "layers": ("n_layer",), "vocab": ("vocab_size",)}
_LLAMA = {"fields": _LLAMA_FIELDS, "gated": True, "rotary": True}

#: model_type → its layout. ``parallel``: attention and MLP side by side on one residual add ("shared":
#: one norm feeds both, GPT-J and Falcon; "two": a norm each, GPT-NeoX); ``bias``: the linear layers with
#: a bias ("qkv", "mlp" or "all"); ``post_norms``: a norm after attention and after the MLP too (Gemma 2);
#: ``tied``: the LM head is the embedding table unless ``tie_word_embeddings`` says otherwise; ``window``:
#: the layers whose attention keeps a ``sliding_window`` of keys ("all"; "alternate": every other one,
#: from the first; "upper": those from ``max_window_layers`` up, when ``use_sliding_window``);
#: ``intermediate``: the MLP width when the config gives none, in hidden sizes; ``kv``: how the KV heads
#: are given (num_key_value_heads by default).
FAMILIES: dict[str, dict] = {
    "llama": _LLAMA,
    "mistral": _LLAMA,
    "mixtral": {**_LLAMA, "moe": True},
    "qwen2": {**_LLAMA, "bias": "qkv", "window": "upper"},
    "gemma": {**_LLAMA, "tied": True},
    "gemma2": {**_LLAMA, "tied": True, "post_norms": True, "window": "alternate"},
    "phi3": {**_LLAMA, "window": "all"},
    "gpt2": {"fields": _GPT_FIELDS, "gated": False, "rotary": False, "tied": True, "kv": "mha"},
    "gptj": {
        "fields": _GPT_FIELDS,
        "gated": False,
        "rotary": True,
        "bias": "mlp",
        "parallel": "shared",
        "kv": "mha",
        "intermediate": 4,
    },
    "gpt_neox": {**_LLAMA, "gated": False, "bias": "all", "parallel": "two", "kv": "mha"},
    "opt": {
        "fields": {**_LLAMA_FIELDS, "intermediate": ("ffn_dim",)},
        "gated": False,
        "rotary": False,
        "bias": "all",
        "tied": True,
        "kv": "mha",
    },
    "falcon": {
        "fields": {**_LLAMA_FIELDS, "heads": ("num_attention_heads", "n_head"), "layers": ("num_hidden_layers", "n_layer"),
                   "intermediate": ("ffn_hidden_size",)},
        "gated": False,
        "rotary": True,
        "parallel": "shared",
        "kv": "falcon",
        "intermediate": 4,
        "tied": True,
    },
}  # fmt: skip


@dataclass(frozen=True)
class TransformerConfig:
    """The numbers of a decoder-only transformer that its inference volumes depend on."""

    family: str
    hidden: int
    heads: int
    kv_heads: int
    layers: int
    intermediate: int
    vocab: int
    head_dim: int
    gated: bool
    rotary: bool
    experts: int = 0
    top_k: int = 0
    name: str = ""
    tied: bool = False  # the LM head is the token embedding table (tie_word_embeddings)
    bias: str = ""  # which linear layers add a bias: "", "qkv", "mlp" or "all"
    parallel: str = ""  # "", "shared" or "two": attention and MLP in parallel (see FAMILIES)
    post_norms: bool = False
    rotary_dim: int = 0  # the head dimensions a rotary embedding turns (0: all of them)
    window: int = 0  # a sliding window's keys (0: none) ...
    window_layers: int = 0  # ... on this many of the layers


def presets() -> list[str]:
    """The names of the bundled configs (``transformer_configs/*.json``, each with its ``_source``)."""
    return sorted(p.stem for p in CONFIG_DIR.glob("*.json"))


def _loaded(config) -> tuple[Mapping, str]:
    """A config's fields and its name (a preset's or a file's stem) from a path, a preset name or a dict."""
    if not isinstance(config, (str, os.PathLike)):
        if not isinstance(config, Mapping):
            raise WorkloadError(
                f"transformer config {short_repr(config)} must be a config.json path, a dict or a preset"
            )
        return config, ""
    path = Path(config)
    key = str(config).strip().lower()
    if not path.is_file() and (CONFIG_DIR / f"{key}.json").is_file():
        path = CONFIG_DIR / f"{key}.json"
    if not path.is_file():
        raise WorkloadError(
            f"transformer config {short_repr(str(config))}: no such file and no such preset; "
            f"presets: {', '.join(presets())}"
        )
    try:
        fields = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise WorkloadError(f"transformer config {str(path)!r}: not a JSON file ({e})") from None
    if not isinstance(fields, Mapping):
        raise WorkloadError(f"transformer config {str(path)!r}: not a JSON object")
    return fields, path.stem


def read_config(config) -> TransformerConfig:
    """A ``TransformerConfig`` from a ``config.json`` path, a dict of its fields, or a preset name.
    Bad input raises ``WorkloadError`` naming the field and the model family; a family this reader does
    not know is refused with the families it does."""
    if isinstance(config, TransformerConfig):
        return config
    config, name = _loaded(config)
    family = config.get("model_type")
    if family is None:
        family = "gpt2" if "n_embd" in config else "llama" if "hidden_size" in config else None
    if family not in FAMILIES:
        raise WorkloadError(
            f"transformer config: model_type={short_repr(family)} is not a known family; "
            f"supported: {', '.join(FAMILIES)}"
        )
    spec = FAMILIES[family]

    def field(quantity):
        keys = spec["fields"].get(quantity, ())
        for key in keys:
            if key in config and config[key] is not None:
                return _whole(family, key, config[key])
        if quantity == "intermediate" and "intermediate" in spec:
            return None
        raise WorkloadError(f"{family} config: the field {keys[0]!r} is missing")

    hidden = field("hidden")
    heads = field("heads")
    layers = field("layers")
    vocab = field("vocab")
    inner = config.get("n_inner") if family in ("gpt2", "gptj") else field("intermediate")
    intermediate = spec.get("intermediate", 4) * hidden if inner is None else _whole(family, "intermediate", inner)
    kv_heads = _kv_heads(family, spec, config, heads)
    if hidden % heads:
        raise WorkloadError(f"{family} config: hidden size {hidden} is not divisible by the {heads} attention heads")
    head_dim = _whole(family, "head_dim", config.get("head_dim") or hidden // heads)
    if heads % kv_heads:
        raise WorkloadError(
            f"{family} config: num_key_value_heads={kv_heads} does not divide num_attention_heads={heads}"
        )
    experts, top_k = _experts(family, spec, config)
    parallel, bias = _layout(family, spec, config)
    tied = check_flag(
        config.get("tie_word_embeddings", spec.get("tied", False)),
        f"{family} config: tie_word_embeddings",
        WorkloadError,
    )
    return TransformerConfig(
        family, hidden, heads, kv_heads, layers, intermediate, vocab, head_dim, spec["gated"], spec["rotary"],
        experts, top_k, name, tied, bias, parallel, spec.get("post_norms", False),
        _rotary_dim(family, config, head_dim) if spec["rotary"] else 0, *_window(family, spec, config, layers),
    )  # fmt: skip


def _layout(family: str, spec: Mapping, config: Mapping) -> tuple[str, str]:
    """(parallel, bias) as the config sets them: GPT-NeoX's use_parallel_residual; Falcon's parallel_attn,
    new_decoder_architecture (a norm each for attention and MLP) and bias."""
    parallel, bias = spec.get("parallel", ""), spec.get("bias", "")
    if family == "gpt_neox" and config.get("use_parallel_residual") is False:
        parallel = ""
    if family == "falcon":
        if config.get("new_decoder_architecture"):
            parallel = "two"
        elif config.get("parallel_attn") is False:
            parallel = ""
        bias = "all" if config.get("bias") else ""
    return parallel, bias


def _window(family: str, spec: Mapping, config: Mapping, layers: int) -> tuple[int, int]:
    """(window, layers with it) from ``sliding_window`` and the family's rule; (0, 0) for none."""
    kind, window = spec.get("window"), config.get("sliding_window")
    if kind is None or window is None:
        return 0, 0
    window = _whole(family, "sliding_window", window)
    if kind == "all":
        return window, layers
    if kind == "alternate":
        return window, (layers + 1) // 2
    if not config.get("use_sliding_window"):
        return 0, 0
    lower = config.get("max_window_layers", 0)
    lower = 0 if lower is None else min(_whole(family, "max_window_layers", lower) if lower else 0, layers)
    return (window, layers - lower) if layers > lower else (0, 0)


def _kv_heads(family: str, spec: Mapping, config: Mapping, heads: int) -> int:
    kind = spec.get("kv")
    if kind == "mha":
        return heads
    if kind == "falcon":  # the new decoder architecture gives num_kv_heads; the old one multi_query
        if config.get("new_decoder_architecture"):
            return _whole(family, "num_kv_heads", config.get("num_kv_heads") or heads)
        return 1 if config.get("multi_query", True) else heads
    # absent or null: multi-head attention, one KV head per query head
    kv_heads = config.get("num_key_value_heads")
    return heads if kv_heads is None else _whole(family, "num_key_value_heads", kv_heads)


def _experts(family: str, spec: Mapping, config: Mapping) -> tuple[int, int]:
    if not (spec.get("moe") or "num_local_experts" in config):
        return 0, 0
    for key in ("num_local_experts", "num_experts_per_tok"):
        if key not in config:
            raise WorkloadError(f"{family} config: the field {key!r} is missing (a mixture of experts needs it)")
    experts = _whole(family, "num_local_experts", config["num_local_experts"])
    top_k = _whole(family, "num_experts_per_tok", config["num_experts_per_tok"])
    if top_k > experts:
        raise WorkloadError(f"{family} config: num_experts_per_tok={top_k} is more than num_local_experts={experts}")
    return experts, top_k


def _rotary_dim(family: str, config: Mapping, head_dim: int) -> int:
    """The dimensions a partial rotary embedding turns (GPT-J's rotary_dim, GPT-NeoX's rotary_pct); 0: all."""
    if config.get("rotary_dim") is not None:
        return min(_whole(family, "rotary_dim", config["rotary_dim"]), head_dim)
    fraction = config.get("rotary_pct", config.get("partial_rotary_factor"))
    if fraction is None or fraction == 1:
        return 0
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 < fraction <= 1:
        raise WorkloadError(f"{family} config: rotary_pct={short_repr(fraction)} must be a fraction in (0, 1]")
    return max(1, int(head_dim * fraction))


def _whole(family, key, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise WorkloadError(f"{family} config: {key}={short_repr(value)} must be a whole number >= 1")
    return int(value)
