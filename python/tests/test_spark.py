"""idnscope inside Spark on local[2]: a Parquet of a million generated names decoded and
audited through idnscope.spark, and decoded through RDD.pipe with the command line, each
equal to the command line's result on the same names."""

from __future__ import annotations

import os
import shlex

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import ERROR_KINDS, cli_path, generated_names, run_cli, traffic_names

pyspark = pytest.importorskip("pyspark", reason="pyspark is installed by .ci/run")

COUNT = 1_000_000
# One name in ten is from the adversarial generator (every kind of finding), the others are
# shaped like a resolver's log (popular names repeated, so each worker meets names again).
ADVERSARIAL_EVERY = 10
# Rows whose value is null.
NULL_EVERY = 99_991


@pytest.fixture(scope="module")
def names(tmp_path_factory):
    """The Parquet (`i`, `qname`), the non-null names as a text file, and what the command
    line gives for them: per row, the line `decode` writes and the findings of `decode` and
    of `audit` (None for a null row)."""
    tmp = tmp_path_factory.mktemp("spark")
    adversarial = iter(generated_names(COUNT // ADVERSARIAL_EVERY, seed=100))
    traffic = iter(traffic_names(COUNT - COUNT // ADVERSARIAL_EVERY))
    lines = [
        next(adversarial) if i % ADVERSARIAL_EVERY == ADVERSARIAL_EVERY - 1 else next(traffic)
        for i in range(COUNT)
    ]
    for i in range(NULL_EVERY // 2, COUNT, NULL_EVERY):
        lines[i] = None
    rows = [i for i, line in enumerate(lines) if line is not None]
    raw = [lines[i].encode("utf-8") for i in rows]
    parquet = tmp / "names.parquet"
    pq.write_table(
        pa.table({"i": pa.array(range(COUNT), type=pa.int64()), "qname": pa.array(lines)}),
        parquet,
        row_group_size=COUNT // 4,
    )
    text = tmp / "names.txt"
    text.write_bytes(b"\n".join(raw) + b"\n")

    written, decoded = run_cli("decode", raw, tmp)
    _written, audited = run_cli("audit", raw, tmp)
    expected = {"written": [None] * COUNT, "decode": [None] * COUNT, "audit": [None] * COUNT}
    for n, i in enumerate(rows):
        expected["written"][i] = written[n].decode("utf-8")
        expected["decode"][i] = decoded.get(n, [])
        expected["audit"][i] = audited.get(n, [])
    return tmp, parquet, text, expected


def first_error(findings):
    if findings is None:
        return None
    return next((f["reason"] for f in findings if f["kind"] in ERROR_KINDS), None)


def test_decode_and_audit_through_mapinarrow(spark, names):
    from idnscope import spark as idn

    tmp, parquet, _text, expected = names
    df = spark.read.parquet(str(parquet))
    assert df.rdd.getNumPartitions() >= 2
    decoded = idn.decode(df, "qname")
    assert decoded.columns == ["i", "qname", "qname_unicode", "qname_reason", "qname_findings"]
    both = idn.audit(decoded, "qname", prefix="audit")
    both.write.parquet(str(tmp / "out"))

    got = pq.read_table(tmp / "out").sort_by("i")
    assert got.column("i").to_pylist() == list(range(COUNT))
    assert got.column("qname_unicode").to_pylist() == expected["written"]
    decode_findings = got.column("qname_findings").to_pylist()
    assert decode_findings == expected["decode"]
    assert got.column("qname_reason").to_pylist() == [first_error(f) for f in expected["decode"]]
    assert got.column("audit_findings").to_pylist() == expected["audit"]

    # What went through Spark holds every kind of finding decoding reports, and nulls.
    kinds = {f["kind"] for found in decode_findings if found for f in found}
    assert kinds == {"invalid-ace", "legacy-race", "homograph", "invalid-name"}
    assert sum(len(found) for found in decode_findings if found) > 50_000
    assert expected["written"].count(None) == len(range(NULL_EVERY // 2, COUNT, NULL_EVERY))


def test_the_command_line_through_rdd_pipe(spark, names):
    tmp, _parquet, text, expected = names
    lines = spark.sparkContext.textFile(str(text), minPartitions=4)
    assert lines.getNumPartitions() >= 2
    env = {"LC_ALL": "C.UTF-8"}
    command = f"{shlex.quote(str(cli_path()))} decode --format names -q"
    lines.pipe(command, env=env).saveAsTextFile(str(tmp / "piped"))
    parts = sorted(p for p in os.listdir(tmp / "piped") if p.startswith("part-"))
    out = b"".join((tmp / "piped" / p).read_bytes() for p in parts).split(b"\n")[:-1]
    # One line out per line in, in order.
    assert out == [w.encode("utf-8") for w in expected["written"] if w is not None]
