"""Spark on local[2], one session, a million names, each pass written to Spark's `noop`
sink (collecting rows would time the driver, not the work):

- identity: mapInArrow that hands each batch back (Spark's own share: Parquet scan, Arrow
  transfer to the Python workers and back);
- idnscope: idnscope.spark.decode (mapInArrow, the batch function);
- idna UDF: a Python UDF calling the `idna` package per row, what users write today.

Run: python benches/spark_bench.py [--names N] [--runs R]   (with idnscope, pyspark,
pandas and idna installed; build the package with `maturin develop --release`).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python" / "tests"))
from conftest import generated_names  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--names", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    from pyspark.sql import SparkSession

    # The Python workers run the interpreter that has idnscope installed.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql.functions import col, udf
    from pyspark.sql.types import StringType

    from idnscope import spark as idn

    tmp = Path(tempfile.mkdtemp(prefix="idnscope-bench-"))
    lines = [line for seed in range(10) for line in generated_names(args.names // 10, seed=100 + seed)]
    pq.write_table(pa.table({"qname": pa.array(lines)}), tmp / "names.parquet", row_group_size=len(lines) // 4)

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("idnscope-bench")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    df = spark.read.parquet(str(tmp / "names.parquet")).cache()
    df.count()

    @udf(returnType=StringType())
    def idna_decode(name):
        import idna

        try:
            return idna.decode(name)
        except (idna.IDNAError, UnicodeError, ValueError):
            return None

    passes = {
        "identity mapInArrow": lambda: df.mapInArrow(lambda batches: batches, df.schema),
        "idnscope mapInArrow": lambda: idn.decode(df, "qname"),
        "idna Python UDF": lambda: df.withColumn("qname_unicode", idna_decode(col("qname"))),
    }
    results = {}
    for name, make in passes.items():
        make().write.format("noop").mode("overwrite").save()  # warm-up
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            make().write.format("noop").mode("overwrite").save()
            times.append(time.perf_counter() - start)
        results[name] = min(times)
        print(f"{name:22} {min(times):7.2f} s (best of {args.runs}; all: "
              + ", ".join(f"{t:.2f}" for t in times) + ")", flush=True)
    udf_time = results["idna Python UDF"]
    ours = results["idnscope mapInArrow"]
    print(f"idnscope is {udf_time / ours:.1f}x faster than the idna UDF "
          f"({len(lines)} names, Spark's own share {results['identity mapInArrow']:.2f} s)")
    spark.stop()


if __name__ == "__main__":
    main()
