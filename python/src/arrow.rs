//! Arrow string arrays read from their buffers, and result columns built as Arrow buffers
//! (validity bitmaps, offsets, data) that the Python side wraps with
//! `pyarrow.Array.from_buffers`: no Python object per value, and no Arrow library.

use idnscope::convert::{BadInput, Converted};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

/// A pyarrow `string` or `large_string` array held for the length of a call: its offsets
/// and validity bits copied and checked while the GIL is held, its data read in place.
pub struct HeldStrings<'py> {
    /// The data buffer, kept alive while [`InputStrings`] borrows its bytes.
    _data_owner: Option<Bound<'py, PyAny>>,
    data: (usize, usize),
    /// `length + 1` offsets into the data, in order and within it.
    offsets: Vec<usize>,
    /// One flag per value (`true`: valid), when the array has nulls.
    valid: Option<Vec<bool>>,
}

/// The values of a [`HeldStrings`], for use without the GIL.
pub struct InputStrings<'a> {
    data: &'a [u8],
    offsets: &'a [usize],
    valid: Option<&'a [bool]>,
}

/// `(address, size)` of a pyarrow buffer of exactly the type `pyarrow.lib.Buffer` in main
/// memory; `(0, 0)` for `None`.
fn buffer_address(buffer: &Bound<'_, PyAny>, exact: &Bound<'_, PyAny>) -> PyResult<(usize, usize)> {
    if buffer.is_none() {
        return Ok((0, 0));
    }
    if !buffer.get_type().is(exact) {
        return Err(PyTypeError::new_err(format!(
            "expected a pyarrow.Buffer, not {}",
            buffer.get_type().name()?
        )));
    }
    if buffer.hasattr("is_cpu")? && !buffer.getattr("is_cpu")?.is_truthy()? {
        return Err(PyValueError::new_err("the array is not in main memory"));
    }
    Ok((
        buffer.getattr("address")?.extract()?,
        buffer.getattr("size")?.extract()?,
    ))
}

/// The `size` bytes at `address` (`size` 0: empty, whatever the address).
///
/// # Safety
///
/// `address` must point to `size` readable bytes that stay allocated for `'a`.
unsafe fn bytes_at<'a>((address, size): (usize, usize)) -> &'a [u8] {
    if size == 0 {
        return &[];
    }
    // SAFETY: guaranteed by the caller.
    unsafe { std::slice::from_raw_parts(address as *const u8, size) }
}

impl<'py> HeldStrings<'py> {
    /// Holds `array`, which must be a `pyarrow.StringArray` or `pyarrow.LargeStringArray`
    /// (exactly those types, so that its length, offset and buffers are pyarrow's own).
    ///
    /// # Errors
    ///
    /// `TypeError` for anything else; `ValueError` when the buffers are too short for the
    /// array, or an offset is negative, out of order or past the data.
    pub fn new(array: &Bound<'py, PyAny>) -> PyResult<Self> {
        let py = array.py();
        let lib = py.import("pyarrow.lib")?;
        let kind = array.get_type();
        let large = if kind.is(&lib.getattr("StringArray")?) {
            false
        } else if kind.is(&lib.getattr("LargeStringArray")?) {
            true
        } else {
            return Err(PyTypeError::new_err(format!(
                "expected a pyarrow string or large_string array, not {}",
                kind.name()?
            )));
        };
        let exact = lib.getattr("Buffer")?;
        let length = array.len()?;
        let offset: usize = array.getattr("offset")?.extract()?;
        let nulls: usize = array.getattr("null_count")?.extract()?;
        let buffers = array.call_method0("buffers")?;
        let (validity, offsets, data) = (
            buffers.get_item(0)?,
            buffers.get_item(1)?,
            buffers.get_item(2)?,
        );
        let data_address = buffer_address(&data, &exact)?;
        // SAFETY: each address and size is pyarrow's own for a buffer it holds (checked to
        // be a `pyarrow.lib.Buffer` in main memory), and `buffers` keeps them alive for this
        // call; the GIL is held while they are read, so no Python code changes them.
        let (validity_bytes, offset_bytes) = unsafe {
            (
                bytes_at(buffer_address(&validity, &exact)?),
                bytes_at(buffer_address(&offsets, &exact)?),
            )
        };
        let end = offset
            .checked_add(length)
            .ok_or_else(|| PyValueError::new_err("array length overflows"))?;
        let valid = if nulls == 0 || validity_bytes.is_empty() {
            None
        } else {
            if validity_bytes.len() < end.div_ceil(8) {
                return Err(PyValueError::new_err(
                    "validity bitmap shorter than the array",
                ));
            }
            Some(
                (offset..end)
                    .map(|at| validity_bytes[at / 8] & (1 << (at % 8)) != 0)
                    .collect(),
            )
        };
        let offsets = read_offsets(offset_bytes, offset, length, large, data_address.1)
            .map_err(PyValueError::new_err)?;
        Ok(HeldStrings {
            _data_owner: (!data.is_none()).then_some(data),
            data: data_address,
            offsets,
            valid,
        })
    }

    /// The values, for use without the GIL.
    pub fn strings(&self) -> InputStrings<'_> {
        InputStrings {
            // SAFETY: the address and size are those of the `pyarrow.lib.Buffer` in
            // `_data_owner`, which `self` keeps alive while the slice borrows it. The bytes
            // are read in place: a Python thread that writes into the buffer during the call
            // changes only which bytes are read (every byte sequence is valid input, and
            // the offsets used are the copy checked in `new`).
            data: unsafe { bytes_at(self.data) },
            offsets: &self.offsets,
            valid: self.valid.as_deref(),
        }
    }
}

/// The offsets of values `offset..offset + length` (and the one after) in an offsets
/// buffer of 32-bit (`large`: 64-bit) little-endian numbers, each checked to be in order
/// and at most `data_len`.
fn read_offsets(
    bytes: &[u8],
    offset: usize,
    length: usize,
    large: bool,
    data_len: usize,
) -> Result<Vec<usize>, String> {
    if length == 0 {
        return Ok(vec![0]);
    }
    let width = if large { 8 } else { 4 };
    let range = offset
        .checked_mul(width)
        .and_then(|start| {
            Some(
                start
                    ..length
                        .checked_add(1)?
                        .checked_mul(width)?
                        .checked_add(start)?,
            )
        })
        .filter(|range| range.end <= bytes.len())
        .ok_or("offsets buffer shorter than the array")?;
    let mut offsets = Vec::with_capacity(length + 1);
    for (i, raw) in bytes[range].chunks_exact(width).enumerate() {
        let value = match *raw {
            [a, b, c, d] => i64::from(i32::from_le_bytes([a, b, c, d])),
            [a, b, c, d, e, f, g, h] => i64::from_le_bytes([a, b, c, d, e, f, g, h]),
            _ => unreachable!("chunks of the width"),
        };
        let at = offset + i;
        let value = usize::try_from(value).map_err(|_| format!("negative offset at {at}"))?;
        if value > data_len || offsets.last().is_some_and(|&previous| value < previous) {
            return Err(format!("offset {at} out of order or past the data"));
        }
        offsets.push(value);
    }
    Ok(offsets)
}

impl<'a> InputStrings<'a> {
    /// The number of values.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The total size of the values' data.
    pub fn data_len(&self) -> usize {
        self.offsets[self.len()] - self.offsets[0]
    }

    /// Value `i` (0-based in the array), or `None` when it is null.
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        if self.valid.is_some_and(|valid| !valid[i]) {
            return None;
        }
        // The offsets were checked in order and within the data.
        Some(&self.data[self.offsets[i]..self.offsets[i + 1]])
    }
}

/// A validity bitmap being built (bit set: valid).
#[derive(Default)]
struct Validity {
    bits: Vec<u8>,
    len: usize,
    nulls: usize,
}

impl Validity {
    fn push(&mut self, valid: bool) {
        if self.len.is_multiple_of(8) {
            self.bits.push(0);
        }
        if valid {
            self.bits[self.len / 8] |= 1 << (self.len % 8);
        } else {
            self.nulls += 1;
        }
        self.len += 1;
    }

    /// The bitmap as bytes, or None when nothing is null; and the null count.
    fn into_py<'py>(self, py: Python<'py>) -> (Bound<'py, PyAny>, usize) {
        let bitmap = if self.nulls == 0 {
            py.None().into_bound(py)
        } else {
            PyBytes::new(py, &self.bits).into_any()
        };
        (bitmap, self.nulls)
    }
}

/// An Arrow string column being built: 64-bit offsets, given back as 32-bit ones (a
/// `string` array) when the data fits, as `large_string` otherwise.
#[derive(Default)]
pub struct StringColumn {
    validity: Validity,
    offsets: Vec<i64>,
    data: Vec<u8>,
}

impl StringColumn {
    /// An empty column with room for `values` values of `bytes` bytes in all.
    pub fn with_capacity(values: usize, bytes: usize) -> Self {
        let mut offsets = Vec::with_capacity(values + 1);
        offsets.push(0);
        StringColumn {
            validity: Validity::default(),
            offsets,
            data: Vec::with_capacity(bytes),
        }
    }

    /// Appends a value.
    pub fn push(&mut self, value: &[u8]) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.data.extend_from_slice(value);
        self.offsets.push(self.data.len() as i64);
        self.validity.push(true);
    }

    /// Appends a null.
    pub fn push_null(&mut self) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.offsets.push(self.data.len() as i64);
        self.validity.push(false);
    }

    /// Appends a value, or a null for `None`.
    fn push_option(&mut self, value: Option<&str>) {
        match value {
            Some(text) => self.push(text.as_bytes()),
            None => self.push_null(),
        }
    }

    /// `(length, null_count, validity or None, offsets, data, large)`.
    pub fn into_py<'py>(mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        let length = self.validity.len;
        let large = self.data.len() > i32::MAX as usize;
        let offsets = if large {
            le_bytes(py, &self.offsets, |o| o.to_le_bytes())
        } else {
            le_bytes(py, &self.offsets, |o| (o as i32).to_le_bytes())
        };
        let data = PyBytes::new(py, &self.data);
        let (validity, nulls) = self.validity.into_py(py);
        (length, nulls, validity, offsets, data, large).into_pyobject(py)
    }
}

/// Numbers written out as little-endian bytes into a Python `bytes`.
fn le_bytes<'py, T: Copy, const N: usize>(
    py: Python<'py>,
    numbers: &[T],
    to_bytes: impl Fn(T) -> [u8; N],
) -> Bound<'py, PyBytes> {
    let mut out = Vec::with_capacity(numbers.len() * N);
    for &n in numbers {
        out.extend_from_slice(&to_bytes(n));
    }
    PyBytes::new(py, &out)
}

/// The findings of a batch: a list per value (null for a null value) of structs with the
/// contract's keys but `file` and `line`, as one column per key.
#[derive(Default)]
pub struct Findings {
    /// Where each value's findings start and end (in findings).
    list_offsets: Vec<i32>,
    lists: Validity,
    column: Vec<i32>,
    name: StringColumn,
    label: StringColumn,
    kind: StringColumn,
    reason: StringColumn,
    message: StringColumn,
    unicode: StringColumn,
    target: StringColumn,
    check: StringColumn,
}

impl Findings {
    /// Ends a value's list (no more findings for it).
    fn end_list(&mut self, valid: bool) {
        if self.list_offsets.is_empty() {
            self.list_offsets.push(0);
        }
        self.list_offsets.push(self.column.len() as i32);
        self.lists.push(valid);
    }

    /// A null value: a null list.
    pub fn push_null(&mut self) {
        self.end_list(false);
    }

    /// The findings of `value`.
    pub fn push(&mut self, value: &[u8], converted: &Converted<'_>) {
        for f in converted.findings {
            // Columns of names and labels are at most as long as a value.
            self.column
                .push(i32::try_from(f.label.start + 1).unwrap_or(i32::MAX));
            let name = converted.name.clone().unwrap_or(0..0);
            self.name.push(&value[name]);
            self.label.push(&value[f.label.clone()]);
            self.kind.push(f.kind.as_str().as_bytes());
            self.reason.push(f.reason.as_str().as_bytes());
            self.message.push(f.message.as_bytes());
            self.unicode.push_option(f.unicode.as_deref());
            self.target.push_option(f.target.as_deref());
            self.check.push_option(f.check.map(|c| c.ids()));
        }
        self.end_list(true);
    }

    /// The one finding of `value`, refused whole as `refused` says.
    pub fn push_bad_input(&mut self, value: &[u8], refused: &BadInput) {
        self.column
            .push(i32::try_from(refused.column).unwrap_or(i32::MAX));
        self.name.push(value);
        self.label.push(&value[refused.at.clone()]);
        self.kind.push(BadInput::REASON.as_bytes());
        self.reason.push(BadInput::REASON.as_bytes());
        self.message.push(refused.to_string().as_bytes());
        self.unicode.push_null();
        self.target.push_null();
        self.check.push_null();
        self.end_list(true);
    }

    /// `(list length, list null count, list validity or None, list offsets, column bytes,
    /// name, label, kind, reason, message, unicode, target, check)`, each string column as
    /// [`StringColumn::into_py`] gives it.
    pub fn into_py<'py>(mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        if self.list_offsets.is_empty() {
            self.list_offsets.push(0);
        }
        let length = self.lists.len;
        let list_offsets = le_bytes(py, &self.list_offsets, i32::to_le_bytes);
        let column = le_bytes(py, &self.column, i32::to_le_bytes);
        let (validity, nulls) = self.lists.into_py(py);
        let strings = [
            self.name.into_py(py)?,
            self.label.into_py(py)?,
            self.kind.into_py(py)?,
            self.reason.into_py(py)?,
            self.message.into_py(py)?,
            self.unicode.into_py(py)?,
            self.target.into_py(py)?,
            self.check.into_py(py)?,
        ];
        let mut items: Vec<Bound<'py, PyAny>> = vec![
            length.into_pyobject(py)?.into_any(),
            nulls.into_pyobject(py)?.into_any(),
            validity,
            list_offsets.into_any(),
            column.into_any(),
        ];
        items.extend(strings.into_iter().map(Bound::into_any));
        PyTuple::new(py, items)
    }
}
