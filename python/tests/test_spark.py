"""idnscope inside Spark on local[2]: a Parquet of a million generated names decoded and
audited through idnscope.spark, and decoded through RDD.pipe with the command line, each
equal to the command line's result on the same names."""

from __future__ import annotations

import os
import sys
import shlex

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import cli_path, generated_names, run_cli

pyspark = pytest.importorskip("pyspark", reason="pyspark is installed by .ci/run")

COUNT = 1_000_000


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    # The Python workers run the interpreter that has idnscope installed.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

    session = (
        SparkSession.builder.master("local[2]")
        .appName("idnscope-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    yield session
    session.stop()


@pytest.fixture(scope="module")
def names(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("spark")
    # Ten different 100k lists (not one repeated), so no name's result is reused.
    lines = [line for seed in range(10) for line in generated_names(COUNT // 10, seed=100 + seed)]
    raw = [line.encode("utf-8") for line in lines]
    parquet = tmp / "names.parquet"
    pq.write_table(
        pa.table({"i": pa.array(range(COUNT), type=pa.int64()), "qname": pa.array(lines)}),
        parquet,
        row_group_size=COUNT // 4,
    )
    text = tmp / "names.txt"
    text.write_bytes(b"\n".join(raw) + b"\n")
    return tmp, parquet, text, raw


def test_decode_and_audit_through_mapinarrow(spark, names):
    from idnscope import spark as idn

    tmp, parquet, _text, raw = names
    df = spark.read.parquet(str(parquet))
    assert df.rdd.getNumPartitions() >= 2
    decoded = idn.decode(df, "qname")
    assert decoded.columns == ["i", "qname", "qname_unicode", "qname_reason", "qname_findings"]
    audited = idn.audit(df, "qname")
    decoded.write.parquet(str(tmp / "decoded"))
    audited.write.parquet(str(tmp / "audited"))

    written, findings = run_cli("decode", raw, tmp)
    got = pq.read_table(tmp / "decoded").sort_by("i")
    assert got.column("i").to_pylist() == list(range(COUNT))
    assert [v.encode("utf-8") for v in got.column("qname_unicode").to_pylist()] == written
    assert got.column("qname_findings").to_pylist() == [findings.get(i, []) for i in range(COUNT)]
    assert sum(1 for f in findings.values() for x in f) > 100_000

    _written, findings = run_cli("audit", raw, tmp)
    got = pq.read_table(tmp / "audited").sort_by("i")
    assert got.column("qname_findings").to_pylist() == [findings.get(i, []) for i in range(COUNT)]


def test_the_command_line_through_rdd_pipe(spark, names):
    tmp, _parquet, text, raw = names
    written, _findings = run_cli("decode", raw, tmp)
    lines = spark.sparkContext.textFile(str(text), minPartitions=4)
    assert lines.getNumPartitions() >= 2
    env = {"LC_ALL": "C.UTF-8"}
    command = f"{shlex.quote(str(cli_path()))} decode --format names -q"
    lines.pipe(command, env=env).saveAsTextFile(str(tmp / "piped"))
    parts = sorted(p for p in os.listdir(tmp / "piped") if p.startswith("part-"))
    out = b"".join((tmp / "piped" / p).read_bytes() for p in parts).split(b"\n")[:-1]
    # One line out per line in, in order.
    assert len(out) == len(raw)
    assert out == written
