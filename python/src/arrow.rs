//! Arrow string arrays of any producer taken through the Arrow C Data Interface (the
//! PyCapsule protocol), and result columns built as Arrow buffers (validity bitmaps,
//! offsets, data) that the Python side wraps with `pyarrow.Array.from_buffers`: no Python
//! object per value, and no copy of the input.

use std::ffi::CStr;

use arrow_array::ffi::{from_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{make_array, Array, BinaryArray, BinaryViewArray, LargeBinaryArray};
use arrow_schema::DataType;
use idnscope::convert::{BadInput, Converted};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyTuple};

/// The name of the capsule of an Arrow C schema (the PyCapsule protocol).
const SCHEMA_CAPSULE: &CStr = c"arrow_schema";
/// The name of the capsule of an Arrow C array.
const ARRAY_CAPSULE: &CStr = c"arrow_array";

/// A string array of any Arrow producer (pyarrow, Polars, DuckDB, nanoarrow...), taken
/// through the Arrow C Data Interface: the object's `__arrow_c_array__` gives the capsules
/// of its schema and array, the array is moved out of its capsule (its producer's buffers,
/// not a copy) and released when this is dropped. `string`, `large_string` and
/// `string_view` arrays are read, and `null` ones (every value null).
pub struct InputStrings {
    values: Values,
}

/// The values of an [`InputStrings`], of the array's own layout.
enum Values {
    /// 32-bit offsets (`string`).
    Offsets(BinaryArray),
    /// 64-bit offsets (`large_string`).
    LargeOffsets(LargeBinaryArray),
    /// Views (`string_view`).
    Views(BinaryViewArray),
    /// `null`: this many values, each null.
    Nulls(usize),
}

impl InputStrings {
    /// Takes the array of `object`, checked whole (offsets in order, offsets and views
    /// within the buffers) before any value is read; its values are read as bytes.
    ///
    /// # Errors
    ///
    /// `TypeError` for an object that is not an Arrow array, or an array of another type;
    /// `ValueError` for capsules that are not those of the protocol, or an array that does
    /// not hold together.
    pub fn new(object: &Bound<'_, PyAny>) -> PyResult<Self> {
        if !object.hasattr("__arrow_c_array__")? {
            return Err(PyTypeError::new_err(format!(
                "expected an Arrow array (an object with __arrow_c_array__), not {}",
                object.get_type().name()?
            )));
        }
        let (schema, array): (Bound<'_, PyCapsule>, Bound<'_, PyCapsule>) =
            object.call_method0("__arrow_c_array__")?.extract()?;
        for (capsule, name) in [(&schema, SCHEMA_CAPSULE), (&array, ARRAY_CAPSULE)] {
            let given = capsule.name()?;
            if given != Some(name) {
                let given = given.map_or("no name".into(), CStr::to_string_lossy);
                return Err(PyValueError::new_err(format!(
                    "__arrow_c_array__ gave a capsule named {given}, not {}",
                    name.to_string_lossy()
                )));
            }
        }
        let schema = schema.pointer().cast::<FFI_ArrowSchema>();
        let array = array.pointer().cast::<FFI_ArrowArray>();
        if schema.is_null() || array.is_null() {
            return Err(PyValueError::new_err(
                "__arrow_c_array__ gave an empty capsule",
            ));
        }
        // SAFETY: the capsules are named as the PyCapsule protocol names those of an Arrow C
        // schema and array, which their producer keeps valid while the capsules live (the
        // schema capsule outlives this call's use of it). `from_raw` moves the array out
        // of its capsule and marks the one left there released, so that the capsule's
        // destructor does not release it again; the array is released when dropped.
        let data = unsafe {
            let array = FFI_ArrowArray::from_raw(array);
            from_ffi(array, &*schema)
        }
        .map_err(|e| PyValueError::new_err(format!("the Arrow array cannot be read: {e}")))?;
        // Read as bytes, as the command line reads its input: a string array whose bytes
        // are not UTF-8 (which pyarrow's `from_buffers` makes) is converted, not refused.
        let bytes = match data.data_type() {
            DataType::Utf8 => DataType::Binary,
            DataType::LargeUtf8 => DataType::LargeBinary,
            DataType::Utf8View => DataType::BinaryView,
            DataType::Null => DataType::Null,
            other => {
                return Err(PyTypeError::new_err(format!(
                    "expected an Arrow string array, not one of {other}"
                )))
            }
        };
        // The builder checks the array whole: buffers long enough, offsets in order and
        // within the data, views within their buffers.
        let data = data
            .into_builder()
            .data_type(bytes)
            .build()
            .map_err(|e| PyValueError::new_err(format!("the Arrow array is not sound: {e}")))?;
        let array = make_array(data);
        let any = array.as_any();
        let values = if let Some(values) = any.downcast_ref::<BinaryArray>() {
            Values::Offsets(values.clone())
        } else if let Some(values) = any.downcast_ref::<LargeBinaryArray>() {
            Values::LargeOffsets(values.clone())
        } else if let Some(values) = any.downcast_ref::<BinaryViewArray>() {
            Values::Views(values.clone())
        } else {
            Values::Nulls(array.len())
        };
        Ok(InputStrings { values })
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        match &self.values {
            Values::Offsets(values) => values.len(),
            Values::LargeOffsets(values) => values.len(),
            Values::Views(values) => values.len(),
            Values::Nulls(len) => *len,
        }
    }

    /// The total size of the values' data.
    pub fn data_len(&self) -> usize {
        match &self.values {
            Values::Offsets(values) => spanned(values.value_offsets()),
            Values::LargeOffsets(values) => spanned(values.value_offsets()),
            Values::Views(values) => values
                .views()
                .iter()
                .map(|&view| view as u32 as usize)
                .sum(),
            Values::Nulls(_) => 0,
        }
    }

    /// Value `i` (0-based in the array), or `None` when it is null.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        match &self.values {
            Values::Offsets(values) => values.is_valid(i).then(|| values.value(i)),
            Values::LargeOffsets(values) => values.is_valid(i).then(|| values.value(i)),
            Values::Views(values) => values.is_valid(i).then(|| values.value(i)),
            Values::Nulls(_) => None,
        }
    }
}

/// The bytes of data that `offsets` span, from the first offset to the last.
fn spanned<O: Copy + TryInto<usize>>(offsets: &[O]) -> usize {
    let at = |o: O| o.try_into().unwrap_or(0);
    match (offsets.first(), offsets.last()) {
        (Some(&first), Some(&last)) => at(last).saturating_sub(at(first)),
        _ => 0,
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
    timestamp: StringColumn,
    last_seen: StringColumn,
    client: StringColumn,
    count: Vec<i64>,
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
        let (timestamp, last_seen, count, client) = crate::seen_fields(converted.seen);
        for (i, f) in converted.findings.iter().enumerate() {
            // Columns of names and labels are at most as long as a value.
            self.column
                .push(i32::try_from(f.label.start + 1).unwrap_or(i32::MAX));
            self.name.push(&value[converted.name_of(i)]);
            self.label.push(&value[f.label.clone()]);
            self.kind.push(f.kind.as_str().as_bytes());
            self.reason.push(f.reason.as_str().as_bytes());
            self.message.push(f.message.as_bytes());
            self.unicode.push_option(f.unicode.as_deref());
            self.target.push_option(f.target.as_deref());
            self.check.push_option(f.check_ids());
            self.timestamp.push_option(timestamp.as_deref());
            self.last_seen.push_option(last_seen.as_deref());
            self.client.push_option(client);
            self.count.push(i64::try_from(count).unwrap_or(i64::MAX));
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
        self.timestamp.push_null();
        self.last_seen.push_null();
        self.client.push_null();
        self.count.push(1);
        self.end_list(true);
    }

    /// `(list length, list null count, list validity or None, list offsets, column bytes,
    /// count bytes, name, label, kind, reason, message, unicode, target, check, timestamp,
    /// last_seen, client)`, each string column as [`StringColumn::into_py`] gives it.
    pub fn into_py<'py>(mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        if self.list_offsets.is_empty() {
            self.list_offsets.push(0);
        }
        let length = self.lists.len;
        let list_offsets = le_bytes(py, &self.list_offsets, i32::to_le_bytes);
        let column = le_bytes(py, &self.column, i32::to_le_bytes);
        let count = le_bytes(py, &self.count, i64::to_le_bytes);
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
            self.timestamp.into_py(py)?,
            self.last_seen.into_py(py)?,
            self.client.into_py(py)?,
        ];
        let mut items: Vec<Bound<'py, PyAny>> = vec![
            length.into_pyobject(py)?.into_any(),
            nulls.into_pyobject(py)?.into_any(),
            validity,
            list_offsets.into_any(),
            column.into_any(),
            count.into_any(),
        ];
        items.extend(strings.into_iter().map(Bound::into_any));
        PyTuple::new(py, items)
    }
}
