"""An example job: the command line as a streaming filter over a text file's lines.

    spark-submit --files target/release/idnscope python/examples/pipe_job.py INPUT OUTPUT_FOLDER

Each task pipes its lines through the idnscope binary shipped with ``--files`` (it lands
in the executor's working folder) and writes the names as ``idnscope decode --format
names`` writes them, one line out for each line in, in order.
"""

import sys

from pyspark.sql import SparkSession


def main(source: str, target: str) -> None:
    spark = SparkSession.builder.appName("idnscope-pipe").getOrCreate()
    lines = spark.sparkContext.textFile(source)
    lines.pipe("./idnscope decode --format names -q").saveAsTextFile(target)
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:3])
