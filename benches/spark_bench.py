"""Spark on local[2], one session, a million names per list, each pass written to Spark's
`noop` sink (collecting rows would time the driver, not the work):

- identity: mapInArrow that hands each batch back (Spark's own share: the cached rows
  turned into Arrow batches, sent to the Python workers and back);
- empty columns: the identity pass plus the three columns idnscope adds, the name as it
  came, no reason and no findings (Spark's share of the added columns);
- idnscope: idnscope.spark.decode (mapInArrow, the batch function);
- idna UDF: a Python UDF calling the `idna` package per row, what users write today;

and, for scale, `decode_batch` alone on the same names in this process (one thread, no
Spark).

Two lists, both deterministic (python/tests/conftest.py):

- traffic: shaped like a resolver's query log (`traffic_names`): 20,000 registered
  domains with Zipf popularity, 4% of them IDNs, common host labels, unique hash labels and
  reverse lookups; about 2% of the names hold an IDN and a tenth of a percent are broken or
  look-alike names;
- adversarial: the tests' generator (`generated_names`, ten lists of 100,000): most names
  in Unicode or ACE in a dozen scripts, broken A-labels and look-alikes of protected
  domains, about 0.86 findings per name.

One warm-up of each pass, then R rounds in which the passes take turns.

Run: python benches/spark_bench.py [--names N] [--runs R] [--lists traffic,adversarial]
(with idnscope, pyspark, pandas and idna installed; build the package with
`maturin develop --release`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python" / "tests"))
from conftest import generated_names, traffic_names  # noqa: E402

LISTS = {
    "traffic": traffic_names,
    "adversarial": lambda count: [
        line for seed in range(10) for line in generated_names(count // 10, seed=100 + seed)
    ],
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--names", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lists", default="traffic,adversarial")
    args = parser.parse_args()

    # The Python workers run the interpreter that has idnscope installed.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    from pyspark.sql.functions import col, udf
    from pyspark.sql.types import ArrayType, StringType, StructField, StructType

    import idnscope
    from idnscope import spark as idn

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("idnscope-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")

    from idnscope._arrow import FINDINGS

    added = StructType(
        [
            StructField("qname_unicode", StringType()),
            StructField("qname_reason", StringType()),
            StructField("qname_findings", ArrayType(idn.FINDING_TYPE)),
        ]
    )

    def empty_columns(batches):
        for batch in batches:
            n = batch.num_rows
            names = batch.column(0)
            empty = pa.Array.from_buffers(
                FINDINGS, n, [None, pa.py_buffer(bytes(4 * (n + 1)))],
                children=[pa.array([], type=FINDINGS.value_type)],
            )
            yield pa.RecordBatch.from_arrays(
                [names, names, pa.nulls(n, pa.string()), empty],
                names=["qname", "qname_unicode", "qname_reason", "qname_findings"],
            )

    @udf(returnType=StringType())
    def idna_decode(name):
        import idna

        try:
            return idna.decode(name)
        except (idna.IDNAError, UnicodeError, ValueError):
            return None

    tmp = Path(tempfile.mkdtemp(prefix="idnscope-bench-"))
    for list_name in args.lists.split(","):
        lines = LISTS[list_name](args.names)
        parquet = tmp / f"{list_name}.parquet"
        pq.write_table(pa.table({"qname": pa.array(lines)}), parquet, row_group_size=len(lines) // 4)
        df = spark.read.parquet(str(parquet)).cache()
        df.count()
        passes = {
            "identity mapInArrow": lambda: df.mapInArrow(lambda batches: batches, df.schema),
            "empty columns": lambda: df.mapInArrow(empty_columns, StructType(df.schema.fields + added.fields)),
            "idnscope mapInArrow": lambda: idn.decode(df, "qname"),
            "idna Python UDF": lambda: df.withColumn("qname_unicode", idna_decode(col("qname"))),
        }
        print(f"{list_name}: {len(lines)} names, {len(set(lines))} distinct", flush=True)
        # The batch function alone, in this process (one thread), on batches of Spark's
        # default size (spark.sql.execution.arrow.maxRecordsPerBatch).
        batches = pa.table({"qname": pa.array(lines)}).to_batches(max_chunksize=10_000)
        alone = []
        for _ in range(args.runs):
            start = time.perf_counter()
            for batch in batches:
                idnscope.decode_batch(batch.column(0))
            alone.append(time.perf_counter() - start)
        print(f"  {'decode_batch alone':22} {min(alone):7.2f} s best (one thread, no Spark)", flush=True)
        for make in passes.values():
            make().write.format("noop").mode("overwrite").save()  # warm-up
        # The passes take turns, so that the load of a shared machine falls on each alike.
        times = {name: [] for name in passes}
        for _ in range(args.runs):
            for name, make in passes.items():
                start = time.perf_counter()
                make().write.format("noop").mode("overwrite").save()
                times[name].append(time.perf_counter() - start)
        for name, taken in times.items():
            print(f"  {name:22} {min(taken):7.2f} s best, {statistics.median(taken):7.2f} s median"
                  f" (all: {', '.join(f'{t:.2f}' for t in taken)})", flush=True)
        ratios = [u / o for u, o in zip(times["idna Python UDF"], times["idnscope mapInArrow"])]
        print(f"  idnscope against the idna UDF: {min(times['idna Python UDF']) / min(times['idnscope mapInArrow']):.1f}x"
              f" (best against best), {statistics.median(ratios):.1f}x (median of the runs' ratios)",
              flush=True)
        df.unpersist()
    spark.stop()


if __name__ == "__main__":
    main()
