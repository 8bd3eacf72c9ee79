"""idnscope inside Apache Spark: DataFrame helpers that run the Arrow batch functions on
the executors through ``DataFrame.mapInArrow`` (Spark 3.3 or later), with the verdicts of
the idnscope command line.

Each helper returns the DataFrame with its columns unchanged and new ones after them::

    from idnscope import spark as idn
    df = idn.decode(spark.read.parquet("names.parquet"), "qname")
    # columns: ..., qname, qname_unicode, qname_reason, qname_findings

The executors need the ``idnscope`` package (and ``pyarrow``) installed, or shipped with
the job (see docs/cluster.md).
"""

from __future__ import annotations

from typing import Iterable, Iterator, List, Optional

import pyarrow as pa

from pyspark.sql import DataFrame
from pyspark.sql.types import (
    ArrayType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

__all__ = ["FINDING_TYPE", "audit", "audit_domains", "decode", "encode"]

#: The Spark type of one finding (the command line's JSON keys but ``file`` and ``line``,
#: then when and by whom the value's record was made, as in :mod:`idnscope`).
FINDING_TYPE = StructType(
    [
        StructField("column", IntegerType(), False),
        StructField("name", StringType(), False),
        StructField("label", StringType(), False),
        StructField("kind", StringType(), False),
        StructField("reason", StringType(), False),
        StructField("message", StringType(), False),
        StructField("unicode", StringType(), True),
        StructField("target", StringType(), True),
        StructField("check", StringType(), True),
        StructField("timestamp", StringType(), True),
        StructField("last_seen", StringType(), True),
        StructField("client", StringType(), True),
        StructField("count", LongType(), False),
    ]
)


def _small(array: pa.Array) -> pa.Array:
    """Spark reads 32-bit offsets only: a column over 2 GiB in one batch is cast."""
    if pa.types.is_large_string(array.type):
        return array.cast(pa.string())
    return array


def _apply(
    df: DataFrame,
    column: str,
    mode: str,
    race: bool,
    protect: Optional[Iterable[str]],
    allow: Optional[Iterable[str]],
    names: List[str],
    format: str,
) -> DataFrame:
    if column not in df.columns:
        raise ValueError(f"no column {column!r} in {df.columns}")
    if not isinstance(df.schema[column].dataType, StringType):
        raise TypeError(f"column {column!r} is {df.schema[column].dataType}, not a string")
    for name in names:
        if name in df.columns:
            raise ValueError(f"the DataFrame has a column {name!r} already")
    if format not in ("names", "log"):
        raise ValueError(f"format={format!r}: names or log")
    protect = None if protect is None else tuple(protect)
    allow = None if allow is None else tuple(allow)
    added = []
    if mode != "audit":
        added += [StructField(names[0], StringType()), StructField(names[1], StringType())]
    added.append(StructField(names[-1], ArrayType(FINDING_TYPE)))
    schema = StructType(df.schema.fields + added)

    def convert(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        # Imported on the executor.
        import idnscope
        from idnscope import _arrow

        engine = idnscope._engine(protect, allow)
        for batch in batches:
            result = _arrow.run(engine, mode, race, batch.column(column), format)
            if mode == "audit":
                extra = [result]
            else:
                extra = [_small(result.field("value")), result.field("reason"), result.field("findings")]
            yield pa.RecordBatch.from_arrays(
                batch.columns + extra, names=batch.schema.names + names
            )

    return df.mapInArrow(convert, schema)


def decode(
    df: DataFrame,
    column: str,
    *,
    race: bool = False,
    protect: Optional[Iterable[str]] = None,
    allow: Optional[Iterable[str]] = None,
    prefix: Optional[str] = None,
    format: str = "names",
) -> DataFrame:
    """``df`` with ``<prefix>_unicode`` (the name as ``idnscope decode`` writes it: valid
    ACE labels in Unicode, invalid ones kept), ``<prefix>_reason`` (the first conversion
    error, or null) and ``<prefix>_findings``. ``prefix`` defaults to the column's name.
    ``format="log"`` reads each value as a line of any text, as ``idnscope --format log``
    does, and so do :func:`encode`, :func:`audit` and :func:`audit_domains`."""
    p = prefix or column
    return _apply(df, column, "decode", race, protect, allow, [f"{p}_unicode", f"{p}_reason", f"{p}_findings"], format)


def encode(
    df: DataFrame,
    column: str,
    *,
    protect: Optional[Iterable[str]] = None,
    allow: Optional[Iterable[str]] = None,
    prefix: Optional[str] = None,
    format: str = "names",
) -> DataFrame:
    """``df`` with ``<prefix>_ace`` (the name as ``idnscope encode`` writes it),
    ``<prefix>_reason`` and ``<prefix>_findings``."""
    p = prefix or column
    return _apply(df, column, "encode", False, protect, allow, [f"{p}_ace", f"{p}_reason", f"{p}_findings"], format)


def audit(
    df: DataFrame,
    column: str,
    *,
    protect: Optional[Iterable[str]] = None,
    allow: Optional[Iterable[str]] = None,
    prefix: Optional[str] = None,
    format: str = "names",
) -> DataFrame:
    """``df`` with ``<prefix>_findings``: what ``idnscope audit`` reports for each name
    (invalid ACE, legacy RACE, homographs and look-alikes against the built-in list plus
    ``protect``, never flagging the domains of ``allow`` as look-alikes)."""
    p = prefix or column
    return _apply(df, column, "audit", False, protect, allow, [f"{p}_findings"], format)


def audit_domains(
    df: DataFrame,
    column: str,
    *,
    by: str = "domain",
    time_col: Optional[str] = None,
    client_col: Optional[str] = None,
    protect: Optional[Iterable[str]] = None,
    allow: Optional[Iterable[str]] = None,
    top: int = 5,
    format: str = "names",
) -> DataFrame:
    """One row per flagged registrable domain (``by="domain"``) or name (``by="name"``)
    of ``df[column]``, as ``idnscope audit --group-by`` gives them for the same records,
    computed with Spark's own aggregation: ``domain`` (or ``name``: lower case, ACE labels
    decoded), ``occurrences`` (the rows that hold a flagged name), ``findings``,
    ``first_seen`` and ``last_seen`` (the least and greatest ``time_col``), ``clients``
    (the distinct values of ``client_col``), ``top_clients`` (the ``top`` most frequent,
    as ``client`` and ``count``, the most first, then by client), ``targets``, ``kinds``,
    ``reasons`` and ``names`` (sorted, distinct). Sorted as the command line sorts its
    groups: the most occurrences first, then by key. The time and client columns are
    left out when not given, but with ``format="log"``, where they are then those the
    command line reads from each line (its findings' ``timestamp`` and ``client``). A
    row whose flagged names fall under several keys (two names on a log line, with
    ``format="log"``) counts once under each, with its findings there."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from . import _idnscope

    if by not in ("domain", "name"):
        raise ValueError(f"by={by!r}: domain or name")
    found = "__idnscope_findings"
    audited = audit(df, column, protect=protect, allow=allow, prefix="__idnscope", format=format)
    flagged = audited.where(F.size(found) > 0)
    # The first and last time of a row, and the queries it stands for.
    first_col = last_col = time_col
    weight = F.lit(1)
    if format == "log":
        # Every finding of a line carries the line's time, client and count.
        line_seen = F.element_at(F.col(found), 1)
        weight = F.greatest(line_seen["count"], F.lit(1))
        if time_col is None:
            first_col, last_col = "__idnscope_first", "__idnscope_last"
            flagged = flagged.withColumn(
                first_col, line_seen["timestamp"].cast("timestamp")
            ).withColumn(
                last_col, F.coalesce(line_seen["last_seen"], line_seen["timestamp"]).cast("timestamp")
            )
        if client_col is None:
            client_col = "__idnscope_client"
            flagged = flagged.withColumn(client_col, line_seen["client"])
    flagged = flagged.withColumn("__idnscope_weight", weight)

    def group_keys(names):
        return None if names is None else _idnscope.group_keys(list(names), by)

    keys_of = F.udf(group_keys, ArrayType(StringType()))

    # The key of each finding's name; a row counts once under each of its keys, with the
    # findings of that key.
    key, keys = "__idnscope_key", "__idnscope_keys"
    keyed = (
        flagged.withColumn(keys, keys_of(F.col(f"{found}.name")))
        .withColumn(key, F.explode(F.array_distinct(keys)))
        .withColumn(
            found,
            F.transform(
                F.filter(
                    F.arrays_zip(F.col(found).alias("f"), F.col(keys).alias("k")),
                    lambda pair: pair["k"] == F.col(key),
                ),
                lambda pair: pair["f"],
            ),
        )
    )

    def distinct_of(field: str):
        values = F.flatten(F.collect_list(F.col(f"{found}.{field}")))
        return F.array_sort(F.array_distinct(F.filter(values, lambda v: v.isNotNull())))

    aggregates = [
        F.sum("__idnscope_weight").cast("long").alias("occurrences"),
        F.sum(F.size(found)).cast("long").alias("findings"),
    ]
    if first_col is not None:
        aggregates += [F.min(first_col).alias("first_seen"), F.max(last_col).alias("last_seen")]
    if client_col is not None:
        aggregates.append(F.countDistinct(client_col).alias("clients"))
    aggregates += [
        distinct_of("target").alias("targets"),
        distinct_of("kind").alias("kinds"),
        distinct_of("reason").alias("reasons"),
        distinct_of("name").alias("names"),
    ]
    groups = keyed.groupBy(key).agg(*aggregates)
    if client_col is not None:
        per_client = (
            keyed.where(F.col(client_col).isNotNull())
            .groupBy(key, client_col)
            .agg(F.sum("__idnscope_weight").cast("long").alias("count"))
        )
        rank = Window.partitionBy(key).orderBy(F.desc("count"), F.asc(client_col))
        tops = (
            per_client.withColumn("__idnscope_rank", F.row_number().over(rank))
            .where(F.col("__idnscope_rank") <= top)
            .groupBy(key)
            .agg(
                F.sort_array(
                    F.collect_list(
                        F.struct(
                            F.col("__idnscope_rank").alias("rank"),
                            F.col(client_col).cast("string").alias("client"),
                            F.col("count"),
                        )
                    )
                ).alias("__idnscope_tops")
            )
            .select(
                key,
                F.transform(
                    "__idnscope_tops",
                    lambda t: F.struct(t["client"].alias("client"), t["count"].alias("count")),
                ).alias("top_clients"),
            )
        )
        groups = groups.join(tops, key, "left")
    return groups.withColumnRenamed(key, by).orderBy(F.desc("occurrences"), F.asc(by))
