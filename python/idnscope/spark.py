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
    StringType,
    StructField,
    StructType,
)

__all__ = ["FINDING_TYPE", "audit", "decode", "encode"]

#: The Spark type of one finding (the command line's JSON keys but ``file`` and ``line``).
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
) -> DataFrame:
    if column not in df.columns:
        raise ValueError(f"no column {column!r} in {df.columns}")
    if not isinstance(df.schema[column].dataType, StringType):
        raise TypeError(f"column {column!r} is {df.schema[column].dataType}, not a string")
    for name in names:
        if name in df.columns:
            raise ValueError(f"the DataFrame has a column {name!r} already")
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
            result = _arrow.run(engine, mode, race, batch.column(column))
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
) -> DataFrame:
    """``df`` with ``<prefix>_unicode`` (the name as ``idnscope decode`` writes it: valid
    ACE labels in Unicode, invalid ones kept), ``<prefix>_reason`` (the first conversion
    error, or null) and ``<prefix>_findings``. ``prefix`` defaults to the column's name."""
    p = prefix or column
    return _apply(df, column, "decode", race, protect, allow, [f"{p}_unicode", f"{p}_reason", f"{p}_findings"])


def encode(
    df: DataFrame,
    column: str,
    *,
    protect: Optional[Iterable[str]] = None,
    allow: Optional[Iterable[str]] = None,
    prefix: Optional[str] = None,
) -> DataFrame:
    """``df`` with ``<prefix>_ace`` (the name as ``idnscope encode`` writes it),
    ``<prefix>_reason`` and ``<prefix>_findings``."""
    p = prefix or column
    return _apply(df, column, "encode", False, protect, allow, [f"{p}_ace", f"{p}_reason", f"{p}_findings"])


def audit(
    df: DataFrame,
    column: str,
    *,
    protect: Optional[Iterable[str]] = None,
    allow: Optional[Iterable[str]] = None,
    prefix: Optional[str] = None,
) -> DataFrame:
    """``df`` with ``<prefix>_findings``: what ``idnscope audit`` reports for each name
    (invalid ACE, legacy RACE, homographs and look-alikes against the built-in list plus
    ``protect``, never flagging the domains of ``allow`` as look-alikes)."""
    p = prefix or column
    return _apply(df, column, "audit", False, protect, allow, [f"{p}_findings"])
