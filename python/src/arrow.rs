//! Arrow string arrays read from their buffers, and result columns built as Arrow buffers
//! (validity bitmaps, offsets, data) that the Python side wraps with
//! `pyarrow.Array.from_buffers`: no Python object per value, and no Arrow library.

use idnscope::convert::{BadInput, Converted};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

/// A borrowed Arrow `string` or `large_string` array, checked on entry: every offset in
/// its range lies within the data buffer, in order, so reading a value cannot go out of
/// bounds.
pub struct InputStrings<'a> {
    length: usize,
    offset: usize,
    validity: Option<&'a [u8]>,
    offsets: &'a [u8],
    data: &'a [u8],
    large: bool,
}

/// A slice from an `(address, size)` pair (`size` 0: empty, whatever the address).
///
/// # Safety
///
/// `address` must point to `size` readable bytes that stay valid and unchanged for `'a`.
unsafe fn slice<'a>((address, size): (usize, usize)) -> &'a [u8] {
    if size == 0 {
        return &[];
    }
    // SAFETY: guaranteed by the caller.
    unsafe { std::slice::from_raw_parts(address as *const u8, size) }
}

impl<'a> InputStrings<'a> {
    /// The array of `length` values from `offset` in the given buffers.
    ///
    /// # Safety
    ///
    /// Each `(address, size)` must describe readable memory that stays valid and unchanged
    /// for `'a` (the buffers of a pyarrow array the caller holds).
    ///
    /// # Errors
    ///
    /// A message when the buffers are too short for `length` and `offset`, or the offsets
    /// are out of order or point past the data.
    pub unsafe fn from_raw(
        length: usize,
        offset: usize,
        validity: (usize, usize),
        offsets: (usize, usize),
        data: (usize, usize),
        large: bool,
    ) -> Result<Self, String> {
        // SAFETY: guaranteed by the caller, for each buffer.
        let (validity, offsets, data) = unsafe { (slice(validity), slice(offsets), slice(data)) };
        let end = offset.checked_add(length).ok_or("array length overflows")?;
        let width = if large { 8 } else { 4 };
        let input = InputStrings {
            length,
            offset,
            validity: (!validity.is_empty()).then_some(validity),
            offsets,
            data,
            large,
        };
        if let Some(validity) = input.validity {
            if validity.len() < end.div_ceil(8) {
                return Err("validity bitmap shorter than the array".into());
            }
        }
        if length == 0 {
            return Ok(input);
        }
        if offsets.len() < (end + 1) * width {
            return Err("offsets buffer shorter than the array".into());
        }
        let mut previous = input.offset_at(offset)?;
        for i in offset + 1..=end {
            let next = input.offset_at(i)?;
            if next < previous || next > data.len() {
                return Err(format!("offset {i} out of order or past the data"));
            }
            previous = next;
        }
        Ok(input)
    }

    /// The `i`-th offset of the buffer (absolute index), as a `usize`.
    fn offset_at(&self, i: usize) -> Result<usize, String> {
        let raw = if self.large {
            let bytes = self.offsets[i * 8..i * 8 + 8]
                .try_into()
                .expect("eight bytes");
            i64::from_le_bytes(bytes)
        } else {
            let bytes = self.offsets[i * 4..i * 4 + 4]
                .try_into()
                .expect("four bytes");
            i64::from(i32::from_le_bytes(bytes))
        };
        usize::try_from(raw).map_err(|_| format!("negative offset at {i}"))
    }

    /// The total size of the values' data.
    pub fn data_len(&self) -> usize {
        if self.length == 0 {
            return 0;
        }
        let first = self.offset_at(self.offset).unwrap_or(0);
        let last = self.offset_at(self.offset + self.length).unwrap_or(first);
        last - first
    }

    /// Value `i` (0-based in the array), or `None` when it is null.
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        let at = self.offset + i;
        if let Some(validity) = self.validity {
            if validity[at / 8] & (1 << (at % 8)) == 0 {
                return None;
            }
        }
        // Both offsets were checked on entry.
        let start = self.offset_at(at).ok()?;
        let end = self.offset_at(at + 1).ok()?;
        Some(&self.data[start..end])
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
                .push(i32::try_from(f.column).unwrap_or(i32::MAX));
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
