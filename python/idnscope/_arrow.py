"""Arrow string arrays of any producer handed to the extension, which takes them through
the Arrow C Data Interface (``__arrow_c_array__``) and reads their buffers in place, and its
results wrapped as Arrow arrays with ``pyarrow.Array.from_buffers``: no Python object per
value."""

from __future__ import annotations

from typing import Any, Optional

import pyarrow as pa

#: The type of one finding: the command line's JSON keys but ``file`` and ``line``, then
#: when and by whom the value's record was made (``format="log"``; null, and a count of 1,
#: where the value does not say).
FINDING = pa.struct(
    [
        pa.field("column", pa.int32(), nullable=False),
        pa.field("name", pa.string(), nullable=False),
        pa.field("label", pa.string(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("reason", pa.string(), nullable=False),
        pa.field("message", pa.string(), nullable=False),
        pa.field("unicode", pa.string()),
        pa.field("target", pa.string()),
        pa.field("check", pa.string()),
        pa.field("timestamp", pa.string()),
        pa.field("last_seen", pa.string()),
        pa.field("client", pa.string()),
        pa.field("count", pa.int64(), nullable=False),
    ]
)
FINDINGS = pa.list_(FINDING)
RESULT = pa.struct(
    [pa.field("value", pa.string()), pa.field("reason", pa.string()), pa.field("findings", FINDINGS)]
)


def _strings(array: Any) -> Any:
    """An Arrow array for ``array``: itself when it is one of any producer (it has
    ``__arrow_c_array__``, which the extension reads without a copy), else the pyarrow
    array of a list or a tuple of strings."""
    if hasattr(array, "__arrow_c_array__"):
        return array
    if isinstance(array, (list, tuple)):
        return pa.array(array, type=pa.string())
    return pa.array(array)


def _buffer(data: Optional[bytes]) -> Optional[pa.Buffer]:
    return None if data is None else pa.py_buffer(data)


def _string_array(parts: tuple) -> pa.Array:
    length, nulls, validity, offsets, data, large = parts
    return pa.Array.from_buffers(
        pa.large_string() if large else pa.string(),
        length,
        [_buffer(validity), pa.py_buffer(offsets), pa.py_buffer(data)],
        null_count=nulls,
    )


def _findings_array(parts: tuple) -> pa.Array:
    length, nulls, validity, list_offsets, column, counts, *strings = parts
    count = len(column) // 4
    children = [pa.Array.from_buffers(pa.int32(), count, [None, pa.py_buffer(column)])]
    children += [_string_array(s) for s in strings]
    children.append(pa.Array.from_buffers(pa.int64(), count, [None, pa.py_buffer(counts)]))
    fields = [FINDING.field(i).with_type(child.type) for i, child in enumerate(children)]
    struct = pa.StructArray.from_arrays(children, fields=fields)
    return pa.Array.from_buffers(
        pa.list_(struct.type),
        length,
        [_buffer(validity), pa.py_buffer(list_offsets)],
        null_count=nulls,
        children=[struct],
    )


def _run_array(engine: Any, mode: str, race: bool, array: pa.Array, format: str) -> pa.Array:
    values, reasons, findings = engine._convert_batch(mode, race, _strings(array), format)
    findings_array = _findings_array(findings)
    if values is None:
        return findings_array
    value_array = _string_array(values)
    reason_array = _string_array(reasons)
    validity = value_array.buffers()[0]
    return pa.StructArray.from_arrays(
        [value_array, reason_array, findings_array],
        names=["value", "reason", "findings"],
        mask=None if validity is None else value_array.is_null(),
    )


def run(engine: Any, mode: str, race: bool, values: Any, format: str = "names"):
    """The batch results of ``values`` in ``mode``, each value read in ``format``
    (``names`` or ``log``): one array, or a chunked array for a chunked input (or a
    stream)."""
    if isinstance(values, pa.ChunkedArray):
        chunks = [_run_array(engine, mode, race, chunk, format) for chunk in values.chunks]
        if not chunks:
            empty = _run_array(engine, mode, race, pa.array([], type=pa.string()), format)
            return pa.chunked_array([], type=empty.type)
        return pa.chunked_array(chunks)
    if not hasattr(values, "__arrow_c_array__") and hasattr(values, "__arrow_c_stream__"):
        return run(engine, mode, race, pa.chunked_array(values), format)
    return _run_array(engine, mode, race, values, format)
