"""Nulls, empty strings, lone surrogates, very long strings, a batch of a million values in
bounded memory, and the GIL released while Rust runs."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
import time

import pyarrow as pa
import pytest

import idnscope
from conftest import ERROR_KINDS, run_cli


def test_nulls_stay_null_and_empty_strings_pass():
    array = pa.array([None, "", "xn--mnchen-3ya.de", None, "xn--abc-"], type=pa.string())
    result = idnscope.decode_batch(array)
    assert result.field("value").to_pylist() == [None, "", "münchen.de", None, "xn--abc-"]
    assert result.field("reason").to_pylist() == [None, None, None, None, "ascii-only"]
    findings = result.field("findings").to_pylist()
    assert findings[0] is None and findings[3] is None
    assert findings[1] == [] and findings[2] == []
    assert result.is_null().to_pylist() == [True, False, False, True, False]
    audited = idnscope.audit_batch(array)
    assert audited.null_count == 2
    assert idnscope.decode("") == "" and idnscope.audit("") == [] and idnscope.check("") is None
    # An array of nulls only (type null) is read as strings.
    assert idnscope.encode_batch(pa.array([None, None])).field("value").to_pylist() == [None, None]
    assert len(idnscope.decode_batch(pa.array([], type=pa.string()))) == 0


def test_conversion_errors_are_value_errors_with_the_reason():
    with pytest.raises(ValueError) as raised:
        idnscope.decode("www.xn--a-ecp.example")
    assert isinstance(raised.value, idnscope.ConversionError)
    assert raised.value.reason == "idna-invalid"
    assert raised.value.finding["label"] == "xn--a-ecp"
    with pytest.raises(idnscope.ConversionError) as raised:
        idnscope.encode("\u0301x.example")
    assert raised.value.reason == "idna-invalid"
    assert raised.value.finding["kind"] == "encode-error"
    with pytest.raises(TypeError):
        idnscope.decode(42)
    with pytest.raises(TypeError):
        idnscope.decode_batch(pa.array([1, 2]))


def test_lone_surrogates_are_read_as_the_bytes_they_stand_for(tmp_path):
    # A str with a lone surrogate has no UTF-8 form; the functions read it as the bytes a
    # lenient encoder writes (ED A0 80 for U+D800), which the command line reads as bytes
    # that are not text: kept as they are, never judged as characters.
    values = ["\ud800.xn--mnchen-3ya.de", "xn--mnchen-3ya.\udfff", "pa\udc80ypal.com", "\ud83d"]
    raw = [v.encode("utf-8", "surrogatepass") for v in values]
    for mode, function in (("decode", idnscope.decode), ("encode", idnscope.encode)):
        written, findings = run_cli(mode, raw, tmp_path)
        for i, value in enumerate(values):
            if any(f["kind"] in ERROR_KINDS for f in findings.get(i, [])):
                with pytest.raises(idnscope.ConversionError):
                    function(value)
                continue
            assert function(value) == written[i].decode("utf-8", "surrogatepass")
            assert function(raw[i]) == written[i]
    _written, findings = run_cli("audit", raw, tmp_path)
    for i, value in enumerate(values):
        assert idnscope.audit(value) == findings.get(i, [])
    assert idnscope.decode("\ud800.xn--mnchen-3ya.de") == "\ud800.münchen.de"
    # Arrow strings cannot hold them: pyarrow refuses, clearly, before idnscope runs.
    with pytest.raises((UnicodeEncodeError, pa.ArrowInvalid)):
        idnscope.decode_batch(values)
    # The same bytes in a binary array viewed as strings go through as bytes.
    binary = pa.array(raw, type=pa.binary())
    strings = pa.Array.from_buffers(pa.string(), len(raw), binary.buffers())
    written, _findings = run_cli("decode", raw, tmp_path)
    out = idnscope.decode_batch(strings).field("value")
    assert out.view(pa.binary()).to_pylist() == written


def test_very_long_strings(tmp_path):
    values = [
        "xn--" + "a" * 200_000,
        "a" * 63 + "." + "b" * 64 + ".xn--mnchen-3ya.de",
        ("xn--mnchen-3ya." * 20) + "de",
        "ü" * 100_000 + ".com",
        "x" * 10_000_000,
    ]
    raw = [v.encode() for v in values]
    array = pa.array(values)
    for mode, function in (("decode", idnscope.decode_batch), ("encode", idnscope.encode_batch)):
        written, findings = run_cli(mode, raw, tmp_path)
        result = function(array)
        assert [v.encode() for v in result.field("value").to_pylist()] == written
        assert result.field("findings").to_pylist() == [findings.get(i, []) for i in range(len(values))]
    _written, findings = run_cli("audit", raw, tmp_path)
    assert [idnscope.audit(v) for v in values] == [findings.get(i, []) for i in range(len(values))]


MILLION = """
import resource, sys
import pyarrow as pa
import idnscope
from conftest import generated_names
names = pa.array(generated_names(100_000) * 10, type=pa.string())
assert len(names) == 1_000_000
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = idnscope.decode_batch(names)
assert len(result) == 1_000_000
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(names.nbytes, result.nbytes, (after - before) * 1024)
"""


def test_a_million_values_in_bounded_memory():
    # Run apart, so that the peak resident size is this batch's alone.
    done = subprocess.run(
        [sys.executable, "-c", MILLION],
        capture_output=True,
        text=True,
        cwd=str(Path(__file__).parent),
    )
    assert done.returncode == 0, done.stderr
    input_bytes, output_bytes, growth = map(int, done.stdout.split())
    print(f"1M values: input {input_bytes} B, result {output_bytes} B, peak RSS growth {growth} B")
    # The result's own buffers, their copy into Python bytes while they are handed over,
    # and the allocator's slack: no Python object per value (a million str objects alone
    # would be over 50 MB beyond that).
    assert growth < 2 * output_bytes + 64 * 2**20


def test_the_gil_is_released_while_rust_runs():
    names = pa.array(["xn--mnchen-3ya.xn--80ak6aa92e.com"] * 400_000)
    ticks = []
    running = threading.Event()

    def work():
        running.set()
        idnscope.audit_batch(names)
        running.clear()

    thread = threading.Thread(target=work)
    thread.start()
    running.wait()
    while running.is_set():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    thread.join()
    # Python code ran in this thread while the batch was being audited.
    assert len(ticks) > 5


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_a_final_line_end_belongs_to_no_name(end, tmp_path):
    # The command line reads the same text as a line of a file: its findings (the target
    # too) and its line written back, with the line end after it, are the oracle.
    lines = ["xn--pypal-4ve.com", " www.xn--mnchen-3ya.de\t", "xn--abc-", "", "# xn--abc-"]
    raw = [line.encode() for line in lines]
    _written, audited = run_cli("audit", raw, tmp_path)
    assert any(f["target"] == "paypal.com" for f in audited[0])
    written, decoded = run_cli("decode", raw, tmp_path)
    for i, line in enumerate(lines):
        value = line + end
        assert idnscope.audit(value) == audited.get(i, []), repr(value)
        assert idnscope.check(value) == idnscope.check(line), repr(value)
        if any(f["kind"] == "invalid-ace" for f in decoded.get(i, [])):
            with pytest.raises(idnscope.ConversionError) as raised:
                idnscope.decode(value)
            assert raised.value.findings == decoded[i]
        else:
            assert idnscope.decode(value) == written[i].decode() + end
    result = idnscope.audit_batch(pa.array([line + end for line in lines]))
    assert result.to_pylist() == [audited.get(i, []) for i in range(len(lines))]


@pytest.mark.parametrize("brk", ["\n", "\r", "\v", "\f"])
@pytest.mark.parametrize("before", ["xn--pypal-4ve.com", "", "# a comment", "  "])
def test_a_line_break_inside_a_value_is_bad_input(brk, before):
    value = before + brk + "xn--abc-"
    column = len(before) + 1
    assert idnscope.check(value) == "bad-input"
    assert idnscope.check(value.encode()) == "bad-input"
    for function in (idnscope.decode, idnscope.encode, idnscope.audit):
        with pytest.raises(idnscope.ConversionError) as raised:
            function(value)
        assert raised.value.reason == "bad-input"
        finding = raised.value.finding
        assert (finding["kind"], finding["column"], finding["label"]) == ("bad-input", column, brk)
        assert f"column {column}" in str(raised.value)
    array = pa.array([value, "xn--mnchen-3ya.de"])
    for function in (idnscope.decode_batch, idnscope.encode_batch):
        result = function(array)
        # Nothing lost: the value comes back as it was, and says why.
        assert result.field("value").to_pylist()[0] == value
        assert result.field("reason").to_pylist() == ["bad-input", None]
        (finding,) = result.field("findings").to_pylist()[0]
        assert (finding["kind"], finding["reason"], finding["column"]) == ("bad-input", "bad-input", column)
    audited = idnscope.audit_batch(array).to_pylist()
    assert [f["kind"] for f in audited[0]] == ["bad-input"] and audited[1] == []


def test_arrays_of_any_producer_are_read_through_the_c_data_interface():
    # The same values from pyarrow (string, large_string, string_view), from Polars (a
    # Series, a stream of string_view arrays) and from nanoarrow (an array of its own, which
    # pyarrow never sees on the way in): the results are those of the plain string array.
    import nanoarrow
    import polars

    values = ["xn--mnchen-3ya.de", None, "xn--a-ecp.example", "www.b\u00fccher.example", ""]
    want = idnscope.decode_batch(pa.array(values, type=pa.string())).to_pylist()
    assert want[0]["value"] == "m\u00fcnchen.de" and want[2]["reason"] == "idna-invalid"
    producers = {
        "large_string": pa.array(values, type=pa.large_string()),
        "string_view": pa.array(values, type=pa.string_view()),
        "a slice": pa.concat_arrays([pa.array(["x"]), pa.array(values)]).slice(1),
        "polars": polars.Series(values),
        "nanoarrow": nanoarrow.c_array(values, nanoarrow.string()),
    }
    for name, array in producers.items():
        got = idnscope.decode_batch(array)
        if isinstance(got, pa.ChunkedArray):
            got = got.combine_chunks()
        assert got.to_pylist() == want, name
    audited = idnscope.audit_batch(polars.Series(["xn--80ak6aa92e.com"])).to_pylist()
    assert "apple.com" in [f["target"] for f in audited[0]], audited


HOSTILE_BATCHES = r"""
import sys
import pyarrow as pa
import idnscope

engine = idnscope._engine(None)
strings = pa.array(["xn--mnchen-3ya.de", None, "b"])
abcd = pa.py_buffer(b"abcd")


def offsets(*numbers, width=4):
    return pa.py_buffer(b"".join(n.to_bytes(width, "little", signed=True) for n in numbers))


cases = {
    "plain ints": (0, 0, (1, 100), (4096, 16), (8, 2**40), False),
    "an address": (3, 0, (0, 0), (16, 2**63), (16, 2**63), True),
    "negative numbers": (-1, -5, (-1, -1), (-8, 8), (-8, 8), False),
    "huge length": (2**64 - 1, 2**64 - 1, (0, 0), (0, 0), (0, 0), False),
    "an int": 42,
    "a list": ["xn--mnchen-3ya.de"],
    "bytes": b"xn--mnchen-3ya.de",
    "a buffer": pa.py_buffer(b"xn--mnchen-3ya.de"),
    "an int array": pa.array([1, 2, 3]),
    "a binary array": pa.array([b"x"]),
    # Arrays that pyarrow's own checks (first and last offsets) let through.
    "offsets out of order": pa.Array.from_buffers(pa.string(), 2, [None, offsets(0, 4, 2), abcd]),
    "a negative offset": pa.Array.from_buffers(pa.string(), 2, [None, offsets(0, -4, 2), abcd]),
    "an offset past the data": pa.Array.from_buffers(
        pa.large_string(), 2, [None, offsets(0, 2**62, 2, width=8), abcd]
    ),
    "a fake array": type("Fake", (), {"buffers": lambda self: [None, offsets(0, 4), abcd]})(),
    "capsules of the wrong kind": type(
        "Twice", (), {"__arrow_c_array__": lambda self, schema=None: (strings.type.__arrow_c_schema__(),) * 2}
    )(),
    "no capsules": type("Numbers", (), {"__arrow_c_array__": lambda self, schema=None: (1, 2)})(),
}
assert not hasattr(engine, "convert_batch"), "a public entry point takes addresses"
for name, args in cases.items():
    if not isinstance(args, tuple):
        args = (args,)
    try:
        engine._convert_batch("decode", False, *args)
    except (TypeError, ValueError, OverflowError) as e:
        print(f"{name}: {type(e).__name__}: {e}")
        continue
    print(f"{name}: accepted")
    sys.exit(1)
# A valid array still converts; a slice of it too.
values, reasons, findings = engine._convert_batch("decode", False, strings.slice(0, 2))
assert values[0] == 2 and values[4] == "münchen.de".encode(), values
print("valid: converted")
# Buffers over a bytearray, which Python code may change, are taken too: the offsets are copied
# and checked at the call, the data read in place.
mutable = pa.Array.from_buffers(
    pa.string(), 1, [None, pa.py_buffer(bytearray(offsets(0, 2).to_pybytes())), pa.py_buffer(bytearray(b"ab"))]
)
values, reasons, findings = engine._convert_batch("encode", False, mutable)
assert values[4] == b"ab", values
print("mutable: converted")
"""


def test_the_batch_entry_takes_no_addresses_and_refuses_what_it_cannot_check():
    # In a child process: a crash shows as a signal there, not as this test runner dying.
    done = subprocess.run(
        [sys.executable, "-c", HOSTILE_BATCHES],
        capture_output=True,
        text=True,
        cwd=str(Path(__file__).parent),
    )
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    assert "PanicException" not in done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 18 and lines[-2:] == ["valid: converted", "mutable: converted"], done.stdout
    assert not any(line.endswith(": accepted") for line in lines)
