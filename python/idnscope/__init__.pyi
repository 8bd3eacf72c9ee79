from typing import Any, Dict, Iterable, List, Optional, TypeVar, Union

import pyarrow as pa

_V = TypeVar("_V", str, bytes)
Finding = Dict[str, Any]

class ConversionError(ValueError):
    """A value that cannot be converted; ``reason`` is the contract's reason code."""

    reason: str
    finding: Finding
    findings: List[Finding]
    def __init__(self, finding: Finding, findings: List[Finding]) -> None: ...

def decode(name: _V, *, race: bool = ..., protect: Optional[Iterable[str]] = ..., allow: Optional[Iterable[str]] = ..., format: str = ...) -> _V:
    """The name with its valid ACE labels in Unicode; raises ConversionError on an invalid
    A-label."""

def encode(name: _V, *, protect: Optional[Iterable[str]] = ..., allow: Optional[Iterable[str]] = ..., format: str = ...) -> _V:
    """The name with its Unicode labels as A-labels; raises ConversionError when a label
    cannot be encoded."""

def check(label_or_name: Union[str, bytes], *, format: str = ...) -> Optional[str]:
    """The reason code why a label or name is not valid (``bad-input`` for a value that is
    not one line), or None."""

def audit(name: Union[str, bytes], *, protect: Optional[Iterable[str]] = ..., allow: Optional[Iterable[str]] = ..., format: str = ...) -> List[Finding]:
    """The findings of ``idnscope audit`` for the name; raises ConversionError for a value
    that is not one line."""

def decode_batch(
    values: Any, *, race: bool = ..., protect: Optional[Iterable[str]] = ..., allow: Optional[Iterable[str]] = ..., format: str = ...
) -> Union[pa.StructArray, pa.ChunkedArray]:
    """decode over an Arrow string array: struct of value, reason, findings."""

def encode_batch(
    values: Any, *, protect: Optional[Iterable[str]] = ..., allow: Optional[Iterable[str]] = ..., format: str = ...
) -> Union[pa.StructArray, pa.ChunkedArray]:
    """encode over an Arrow string array: struct of value, reason, findings."""

def audit_batch(
    values: Any, *, protect: Optional[Iterable[str]] = ..., allow: Optional[Iterable[str]] = ..., format: str = ...
) -> Union[pa.ListArray, pa.ChunkedArray]:
    """audit over an Arrow string array: a list of findings per value."""
