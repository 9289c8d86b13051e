"""Workload.from_jax: the phases are the fusions of XLA's compiled module, their FLOPs and bytes XLA's cost
analysis, summing to the compiled module's own cost_analysis() totals (docs/from-code.md#jax)."""

from __future__ import annotations

import re
import sys

import pytest

from campaign_widget import Workload, WorkloadError, WrongTypeError

try:
    import jax
    import jax.numpy as jnp
except ImportError:  # CI installs the [jax] extra (.ci/run): a missing jax fails, never skips
    pytest.fail("JAX is needed for these tests: pip install -e '.[jax]'", pytrace=False)


def spec(*shape):
    """An abstract argument: a shape and a type, no data (nothing is computed)."""
    return jax.ShapeDtypeStruct(shape, jnp.float32)


def mlp(x, w1, b1, w2):
    h = jax.nn.gelu(x @ w1 + b1)
    return jax.nn.softmax(h @ w2, axis=-1)


def looped(x, w):
    return jax.lax.fori_loop(0, 4, lambda i, h: jnp.tanh(h @ w), x)


def scanned(xs, w):
    def step(carry, x):
        carry = jnp.tanh(carry @ w + x)
        return carry, carry.sum()

    return jax.lax.scan(step, xs[0], xs)


CASES = {
    "mlp": (mlp, (spec(16, 32), spec(32, 64), spec(64), spec(64, 10))),
    "fori_loop": (looped, (spec(8, 16), spec(16, 16))),
    "scan": (scanned, (spec(10, 4, 16), spec(16, 16))),
}


def compiled(fn, args):
    return jax.jit(fn).lower(*args).compile()


def totals(fn, args) -> dict:
    analysis = compiled(fn, args).cost_analysis()
    return analysis[0] if isinstance(analysis, (list, tuple)) else analysis


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_sum_over_phases_equals_the_compiled_modules_cost_analysis(name):
    fn, args = CASES[name]
    workload = Workload.from_jax(fn, *args)
    expected = totals(fn, args)
    assert expected["flops"] > 0
    assert workload.arrays.ops.sum() == pytest.approx(expected["flops"], rel=0, abs=0.5)
    assert workload.arrays.bytes.sum() == pytest.approx(expected["bytes accessed"], rel=0, abs=0.5)
    notes = "\n".join(workload.import_report.notes)
    assert f"the compiled module's cost_analysis(): {expected['flops']:,.0f} FLOPs" in notes
    assert f"sum over phases: {expected['flops']:,.0f} FLOPs, {expected['bytes accessed']:,.0f} bytes" in notes


def test_the_phases_are_the_fusions_of_the_compiled_module():
    fn, args = CASES["mlp"]
    text = compiled(fn, args).as_text()
    entry = text[text.index("\nENTRY") :]
    fusions = set(re.findall(r"%([\w.\-]+) = \S+ fusion\(", entry))
    workload = Workload.from_jax(fn, *args)
    assert fusions and set(workload.names) == fusions
    report = workload.import_report
    assert set(report.flops_sources.values()) == {"XLA cost analysis"}
    assert any(n.startswith("fused by: XLA (cpu compiler)") for n in report.notes)
    assert any("compiled for the CPU" in n for n in report.notes)


def test_dependencies_follow_the_operands_and_parameters_keep_their_names():
    workload = Workload.from_jax(lambda x, w: jnp.tanh(x @ w) * 3, spec(8, 16), spec(16, 4))
    reads = [set(r) for r, _ in workload.tensors]
    assert {"x", "w"} <= reads[0]  # the first phase reads the arguments by name
    indptr, indices = workload.producers
    for i in range(1, len(workload)):
        assert indices[indptr[i] : indptr[i + 1]].size > 0  # every later phase waits for one before it


def test_real_arrays_and_a_machine_work_too():
    workload = Workload.from_jax(lambda x: jnp.exp(x).sum(), jnp.ones((128, 128)), machine="h100-sxm")
    assert "H100" in workload.machine.name
    assert float(workload.arrays.duration.sum()) > 0


# -- bad input ----------------------------------------------------------------------------------------------


def test_python_control_flow_on_a_traced_value_is_named():
    def branchy(x):
        if x.sum() > 0:
            return x
        return -x

    with pytest.raises(WorkloadError, match=r"jax.jit\(branchy\) does not compile.*jax.lax.cond"):
        Workload.from_jax(branchy, spec(3))


def test_a_function_that_does_not_compile_says_why():
    with pytest.raises(WorkloadError, match=r"does not compile: TypeError: dot_general"):
        Workload.from_jax(lambda x: x @ x, spec(3, 4))


@pytest.mark.parametrize(
    ("bad", "where"), [("text", r"example_args\[0\]"), ([spec(2), object()], r"example_args\[0\]")]
)
def test_example_arguments_of_the_wrong_kind_are_named(bad, where):
    with pytest.raises(WrongTypeError, match=where):
        Workload.from_jax(lambda x: x, bad)


def test_no_function_no_arguments_are_refused():
    with pytest.raises(WrongTypeError, match="function"):
        Workload.from_jax("f", spec(2))
    with pytest.raises(WrongTypeError, match="example arguments"):
        Workload.from_jax(jnp.tanh)


def test_without_jax_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "jax", None)
    with pytest.raises(ImportError, match=r"pip install 'campaign_widget\[jax\]'") as caught:
        Workload.from_jax(lambda x: x, 1)
    assert "\n" not in str(caught.value)
