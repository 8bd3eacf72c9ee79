from typing import Iterable, Optional

from pyspark.sql import DataFrame
from pyspark.sql.types import StructType

FINDING_TYPE: StructType

def decode(
    df: DataFrame,
    column: str,
    *,
    race: bool = ...,
    protect: Optional[Iterable[str]] = ...,
    allow: Optional[Iterable[str]] = ...,
    prefix: Optional[str] = ...,
    format: str = ...,
) -> DataFrame:
    """df with <prefix>_unicode, <prefix>_reason and <prefix>_findings."""

def encode(
    df: DataFrame,
    column: str,
    *,
    protect: Optional[Iterable[str]] = ...,
    allow: Optional[Iterable[str]] = ...,
    prefix: Optional[str] = ...,
    format: str = ...,
) -> DataFrame:
    """df with <prefix>_ace, <prefix>_reason and <prefix>_findings."""

def audit(
    df: DataFrame,
    column: str,
    *,
    protect: Optional[Iterable[str]] = ...,
    allow: Optional[Iterable[str]] = ...,
    prefix: Optional[str] = ...,
    format: str = ...,
) -> DataFrame:
    """df with <prefix>_findings."""

def audit_domains(
    df: DataFrame,
    column: str,
    *,
    by: str = ...,
    time_col: Optional[str] = ...,
    client_col: Optional[str] = ...,
    protect: Optional[Iterable[str]] = ...,
    allow: Optional[Iterable[str]] = ...,
    top: int = ...,
    format: str = ...,
) -> DataFrame:
    """One row per flagged domain (or name), as audit --group-by gives them."""
