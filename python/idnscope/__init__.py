"""Internationalized domain names in bulk, with the verdicts of the idnscope command line.

Every function gives for a value exactly what ``idnscope decode|encode|audit --format names``
gives for a line holding it: the same conversion, the same findings (kinds, reason codes,
messages, columns) and the same reason codes. A value is one line of a names list: blanks
around the name and a final line end (``\\n``, ``\\r\\n`` or ``\\r``) are kept, and an empty
value or a ``#`` comment passes unchanged. A value with a line break (``\\n``, ``\\r``,
``\\v``, ``\\f``) before its end is refused whole with reason ``bad-input``: one value is one
name.

Every function takes ``format="log"`` too: a value is then one line of any text (a DNS
server's log line, a JSON record, a CSV row), and the names in it are found where they
stand, as ``idnscope --format log`` finds them: each finding's ``name`` is the name it is
in, its ``column`` the label's in the value, and an audit reports a name that stands twice
on the line once.

Per value: :func:`decode`, :func:`encode`, :func:`check`, :func:`audit`.
Per batch, over Arrow string arrays with no Python object per value and the GIL released:
:func:`decode_batch`, :func:`encode_batch`, :func:`audit_batch`.
Spark: :mod:`idnscope.spark`.

A finding is a dict with the command line's JSON keys but ``file`` and ``line`` (a value's
place is its position): ``column`` (1-based byte column of the label in the value),
``name``, ``label``, ``kind``, ``reason``, ``message``, ``unicode``, ``target``,
``check`` (the homograph check's numbers, or ``None``); then when and by whom the value's
record was made, as the command line reads them from a log line with ``format="log"``:
``timestamp`` (RFC 3339 in UTC; a passive-DNS record's first seen), ``last_seen`` (where it
differs), ``count`` (the queries a passive-DNS record stands for, else 1) and ``client``
(the address that asked); ``None`` (and a count of 1) where the line does not say, and
always in the names format.
"""

from __future__ import annotations

import functools
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

from . import _arrow
from ._idnscope import Engine

__all__ = [
    "ConversionError",
    "audit",
    "audit_batch",
    "check",
    "decode",
    "decode_batch",
    "encode",
    "encode_batch",
]

Value = Union[str, bytes]
Finding = Dict[str, Any]


class ConversionError(ValueError):
    """A value that cannot be converted: an invalid ACE label, a label that cannot be
    encoded, or a value that is not one line (kind and reason ``bad-input``). ``reason`` is
    the contract's reason code of the first such label, ``finding`` its finding,
    ``findings`` all the value's findings."""

    def __init__(self, finding: Finding, findings: List[Finding]) -> None:
        super().__init__(
            f"{finding['label']}: {finding['kind']}: {finding['reason']}: {finding['message']}"
        )
        self.reason: str = finding["reason"]
        self.finding: Finding = finding
        self.findings: List[Finding] = findings


@functools.lru_cache(maxsize=8)
def _engine_for(
    protect: Optional[Tuple[str, ...]], allow: Optional[Tuple[str, ...]]
) -> Engine:
    return Engine(
        list(protect) if protect is not None else None,
        list(allow) if allow is not None else None,
    )


def _engine(protect: Optional[Iterable[str]], allow: Optional[Iterable[str]] = None) -> Engine:
    """The engine for the built-in protected list plus ``protect``, never flagging the
    domains of ``allow`` as look-alikes (cached)."""
    return _engine_for(
        None if protect is None else tuple(protect), None if allow is None else tuple(allow)
    )


def _to_bytes(value: Value) -> bytes:
    if isinstance(value, str):
        # Lone surrogates become the bytes a UTF-8 encoder that lets them pass would
        # write, which idnscope reads as the bytes that are not text they are.
        return value.encode("utf-8", "surrogatepass")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"expected str or bytes, not {type(value).__name__}")


def _like(written: bytes, value: Value) -> Value:
    if isinstance(value, str):
        return written.decode("utf-8", "surrogatepass")
    return written


def _convert(
    mode: str,
    race: bool,
    value: Value,
    protect: Optional[Iterable[str]],
    allow: Optional[Iterable[str]] = None,
    format: str = "names",
):
    written, findings, _reason = _engine(protect, allow).convert(
        mode, race, _to_bytes(value), format
    )
    return written, findings


_ERRORS = ("invalid-ace", "encode-error", "invalid-name", "bad-input")


def _raise_on_error(findings: List[Finding], kinds: Tuple[str, ...] = _ERRORS) -> None:
    for finding in findings:
        if finding["kind"] in kinds:
            raise ConversionError(finding, findings)


def decode(
    name: Value,
    *,
    race: bool = False,
    protect: Optional[Iterable[str]] = None,
    allow: Optional[Iterable[str]] = None,
    format: str = "names",
) -> Value:
    """The name with its valid ACE labels in Unicode (``str`` in, ``str`` out; ``bytes`` in,
    ``bytes`` out). ``race`` also converts valid RACE (``bq--``) labels. Raises
    :class:`ConversionError` when a label is an invalid A-label, or the name is no DNS
    name (``idnscope decode`` would keep it and report it)."""
    written, findings = _convert("decode", race, name, protect, allow, format)
    _raise_on_error(findings)
    return _like(written, name)


def encode(
    name: Value,
    *,
    protect: Optional[Iterable[str]] = None,
    allow: Optional[Iterable[str]] = None,
    format: str = "names",
) -> Value:
    """The name with its Unicode labels as A-labels (UTS #46 non-transitional). Raises
    :class:`ConversionError` when a label cannot be encoded, an ACE label in it is
    invalid, or the name is no DNS name."""
    written, findings = _convert("encode", False, name, protect, allow, format)
    _raise_on_error(findings)
    return _like(written, name)


def check(label_or_name: Value, *, format: str = "names") -> Optional[str]:
    """The reason code why a label or name is not valid, or ``None``: the first
    ``invalid-ace``, ``encode-error`` or ``invalid-name`` that ``idnscope encode`` reports
    for it (A-labels are checked strictly; Unicode labels must be encodable; labels of at
    most 63 octets, names of at most 255), or ``bad-input`` for a value that is not one
    line."""
    _written, _findings, reason = _engine(None).convert(
        "encode", False, _to_bytes(label_or_name), format
    )
    return reason


def audit(
    name: Value,
    *,
    protect: Optional[Iterable[str]] = None,
    allow: Optional[Iterable[str]] = None,
    format: str = "names",
) -> List[Finding]:
    """The findings of ``idnscope audit`` for the name: invalid ACE labels, legacy RACE
    labels, homographs and look-alikes. ``protect`` adds domains to the built-in protected
    list; ``allow`` lists domains never flagged as look-alikes (``--allow``). Raises
    :class:`ConversionError` for a value that is not one line (``bad-input``)."""
    _written, findings = _convert("audit", False, name, protect, allow, format)
    _raise_on_error(findings, kinds=("bad-input",))
    return findings


def decode_batch(
    values: Any,
    *,
    race: bool = False,
    protect: Optional[Iterable[str]] = None,
    allow: Optional[Iterable[str]] = None,
    format: str = "names",
):
    """:func:`decode` over an Arrow string array of any producer (an object with
    ``__arrow_c_array__`` or ``__arrow_c_stream__``: pyarrow, Polars, nanoarrow...; read
    without a copy) or anything ``pyarrow.array`` takes. Returns a struct array (or a
    chunked one, for a chunked input) of ``value`` (the line as ``idnscope decode`` writes
    it: invalid labels kept), ``reason`` (the first conversion error, or null) and
    ``findings`` (a list of finding structs). Nulls stay null. A value that is not one line
    comes back as it is, with reason ``bad-input`` and that one finding."""
    return _arrow.run(_engine(protect, allow), "decode", race, values, format)


def encode_batch(
    values: Any,
    *,
    protect: Optional[Iterable[str]] = None,
    allow: Optional[Iterable[str]] = None,
    format: str = "names",
):
    """:func:`encode` over an Arrow string array; results as for :func:`decode_batch`."""
    return _arrow.run(_engine(protect, allow), "encode", False, values, format)


def audit_batch(
    values: Any,
    *,
    protect: Optional[Iterable[str]] = None,
    allow: Optional[Iterable[str]] = None,
    format: str = "names",
):
    """:func:`audit` over an Arrow string array: a list array of finding structs (chunked
    for a chunked input), null where the input is null."""
    return _arrow.run(_engine(protect, allow), "audit", False, values, format)
