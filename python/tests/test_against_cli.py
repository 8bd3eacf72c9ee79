"""Every function against the command line on the same lines: the sample list, the root
zone's names, and 100,000 generated names."""

from __future__ import annotations

from pathlib import Path
from typing import List

import pyarrow as pa
import pytest

import idnscope
from conftest import ERROR_KINDS, ROOT, generated_names, root_zone_names, run_cli

MODES = ["decode", "encode", "audit"]


def sample_lines() -> List[str]:
    return (ROOT / "samples" / "names.txt").read_text(encoding="utf-8").split("\n")[:-1]


INPUTS = {
    "samples": sample_lines,
    "root-zone": root_zone_names,
    "generated-100k": lambda: generated_names(100_000),
}


@pytest.fixture(scope="module", params=list(INPUTS))
def case(request, tmp_path_factory):
    lines = INPUTS[request.param]()
    tmp = tmp_path_factory.mktemp(request.param)
    encoded = [line.encode("utf-8") for line in lines]
    expected = {mode: run_cli(mode, encoded, tmp) for mode in MODES}
    return lines, expected


def test_inputs_exercise_every_kind_of_finding(case):
    lines, expected = case
    if len(lines) < 100_000:
        return
    kinds = {f["kind"] for found in expected["encode"][1].values() for f in found}
    kinds |= {f["kind"] for found in expected["audit"][1].values() for f in found}
    assert kinds == {"invalid-ace", "legacy-race", "homograph", "encode-error", "invalid-name"}


def test_decode_and_encode_per_value(case):
    lines, expected = case
    for mode, function in (("decode", idnscope.decode), ("encode", idnscope.encode)):
        written, findings = expected[mode]
        for i, line in enumerate(lines):
            errors = [f for f in findings.get(i, []) if f["kind"] in ERROR_KINDS]
            if errors:
                with pytest.raises(idnscope.ConversionError) as raised:
                    function(line)
                assert raised.value.reason == errors[0]["reason"], line
                assert raised.value.findings == findings[i], line
            else:
                assert function(line) == written[i].decode("utf-8"), (mode, line)


def test_check_per_value(case):
    lines, expected = case
    _written, findings = expected["encode"]
    for i, line in enumerate(lines):
        errors = [f["reason"] for f in findings.get(i, []) if f["kind"] in ERROR_KINDS]
        assert idnscope.check(line) == (errors[0] if errors else None), line


def test_audit_per_value(case):
    lines, expected = case
    _written, findings = expected["audit"]
    for i, line in enumerate(lines):
        assert idnscope.audit(line) == findings.get(i, []), line


def test_batches(case):
    lines, expected = case
    array = pa.array(lines, type=pa.string())
    for mode, function in (("decode", idnscope.decode_batch), ("encode", idnscope.encode_batch)):
        written, findings = expected[mode]
        result = function(array)
        assert result.type == pa.struct(
            [("value", pa.string()), ("reason", pa.string()), ("findings", result.type["findings"].type)]
        )
        assert result.field("value").to_pylist() == [w.decode("utf-8") for w in written]
        assert result.field("findings").to_pylist() == [findings.get(i, []) for i in range(len(lines))]
        reasons = [
            next((f["reason"] for f in findings.get(i, []) if f["kind"] in ERROR_KINDS), None)
            for i in range(len(lines))
        ]
        assert result.field("reason").to_pylist() == reasons
    _written, findings = expected["audit"]
    assert idnscope.audit_batch(array).to_pylist() == [findings.get(i, []) for i in range(len(lines))]


def test_chunked_sliced_and_large_arrays_agree_with_the_whole(case):
    lines, expected = case
    written, findings = expected["decode"]
    want = [w.decode("utf-8") for w in written]
    whole = pa.array(lines, type=pa.large_string())
    third = max(1, len(lines) // 3)
    chunked = pa.chunked_array([whole.slice(0, third), whole.slice(third, third), whole.slice(2 * third)])
    result = idnscope.decode_batch(chunked)
    assert isinstance(result, pa.ChunkedArray)
    assert result.num_chunks == 3
    assert result.combine_chunks().field("value").to_pylist() == want
    sliced = idnscope.decode_batch(pa.array(lines).slice(1))
    assert sliced.field("value").to_pylist() == want[1:]
    assert sliced.field("findings").to_pylist() == [findings.get(i, []) for i in range(1, len(lines))]
