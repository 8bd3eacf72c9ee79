"""An example job: decode and audit the names of a Parquet column with idnscope.

    spark-submit python/examples/decode_job.py INPUT.parquet COLUMN OUTPUT_FOLDER

Writes the input's columns plus COLUMN_unicode, COLUMN_reason and COLUMN_findings as
Parquet, and prints how many names had findings of each kind.
"""

import sys

from pyspark.sql import SparkSession
from pyspark.sql.functions import col, explode

from idnscope import spark as idn


def main(source: str, column: str, target: str) -> None:
    spark = SparkSession.builder.appName("idnscope-decode").getOrCreate()
    decoded = idn.decode(spark.read.parquet(source), column)
    decoded.write.mode("overwrite").parquet(target)
    findings = spark.read.parquet(target).select(explode(col(f"{column}_findings")).alias("f"))
    findings.groupBy("f.kind", "f.reason").count().orderBy("count", ascending=False).show(50, False)
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:4])
