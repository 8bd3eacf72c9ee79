//! The Python extension module `idnscope._idnscope`: a thin layer over
//! [`idnscope::convert`]. The Python package (`python/idnscope/`) wraps it: it hands
//! pyarrow string arrays in, and wraps the buffers it returns as Arrow arrays.

mod arrow;

use std::sync::{Arc, Mutex};

use idnscope::audit::{Homographs, Protected, Suffixes};
use idnscope::convert::{BadInput, Converted, Converter, ValueFormat};
use idnscope::finding::Seen;
use idnscope::groups::{group_key, GroupBy};
use idnscope::rewrite::Mode;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

use crate::arrow::{Findings, InputStrings, StringColumn};

/// The mode that a mode name and the `race` flag give.
fn mode(name: &str, race: bool) -> PyResult<Mode> {
    match name {
        "decode" => Ok(Mode::Decode { race }),
        "encode" => Ok(Mode::Encode),
        "audit" => Ok(Mode::Audit),
        other => Err(PyValueError::new_err(format!("unknown mode {other:?}"))),
    }
}

/// The format that a format name gives.
fn value_format(name: &str) -> PyResult<ValueFormat> {
    match name {
        "names" => Ok(ValueFormat::Names),
        "log" => Ok(ValueFormat::Log),
        other => Err(PyValueError::new_err(format!(
            "format={other:?}: names or log"
        ))),
    }
}

/// A protected list and the converters made for it (kept for reuse, one per call at a
/// time; threads that call at once get one each).
#[pyclass(frozen, module = "idnscope._idnscope")]
struct Engine {
    homographs: Arc<Homographs>,
    idle: Mutex<Vec<Converter>>,
}

impl Engine {
    /// An idle converter in `mode` that reads values in `format`, or a new one.
    fn take(&self, mode: Mode, format: ValueFormat) -> Converter {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        match idle
            .iter()
            .position(|c| c.mode() == mode && c.format() == format)
        {
            Some(at) => idle.swap_remove(at),
            None => Converter::new(mode, Arc::clone(&self.homographs)).with_format(format),
        }
    }

    /// Gives `converter` back for reuse.
    fn give_back(&self, converter: Converter) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        idle.push(converter);
    }
}

/// The `timestamp`, `last_seen`, `count` and `client` of a finding made at `seen`, as the
/// command line's JSON Lines report writes them (`last_seen` where it differs from
/// `timestamp`), with `None` (and a count of 1) for what the value does not give.
pub(crate) fn seen_fields(
    seen: Option<&Seen>,
) -> (Option<String>, Option<String>, u64, Option<&str>) {
    let Some(seen) = seen else {
        return (None, None, 1, None);
    };
    (
        seen.first.map(Seen::rfc3339),
        seen.last_differing().map(Seen::rfc3339),
        seen.count,
        seen.client.as_deref(),
    )
}

/// The findings of one value as a list of dicts with the contract's keys (but `file` and
/// `line`), and the keys of when and by whom the value's record was made.
fn findings_list<'py>(
    py: Python<'py>,
    value: &[u8],
    converted: &Converted<'_>,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    let (timestamp, last_seen, count, client) = seen_fields(converted.seen);
    for (i, f) in converted.findings.iter().enumerate() {
        let dict = PyDict::new(py);
        dict.set_item("column", f.label.start + 1)?;
        dict.set_item(
            "name",
            String::from_utf8_lossy(&value[converted.name_of(i)]),
        )?;
        dict.set_item("label", String::from_utf8_lossy(&value[f.label.clone()]))?;
        dict.set_item("kind", f.kind.as_str())?;
        dict.set_item("reason", f.reason.as_str())?;
        dict.set_item("message", &f.message)?;
        dict.set_item("unicode", f.unicode.as_deref())?;
        dict.set_item("target", f.target.as_deref())?;
        dict.set_item("check", f.check_ids())?;
        dict.set_item("timestamp", timestamp.as_deref())?;
        dict.set_item("last_seen", last_seen.as_deref())?;
        dict.set_item("count", count)?;
        dict.set_item("client", client)?;
        list.append(dict)?;
    }
    Ok(list)
}

/// The one finding of a value refused whole, as a list of one dict with the keys of
/// [`findings_list`]: kind and reason `bad-input`, the value as the name, the line break as
/// the label.
fn bad_input_list<'py>(
    py: Python<'py>,
    value: &[u8],
    refused: &BadInput,
) -> PyResult<Bound<'py, PyList>> {
    let dict = PyDict::new(py);
    dict.set_item("column", refused.column)?;
    dict.set_item("name", String::from_utf8_lossy(value))?;
    dict.set_item("label", String::from_utf8_lossy(&value[refused.at.clone()]))?;
    dict.set_item("kind", BadInput::REASON)?;
    dict.set_item("reason", BadInput::REASON)?;
    dict.set_item("message", refused.to_string())?;
    for key in [
        "unicode",
        "target",
        "check",
        "timestamp",
        "last_seen",
        "client",
    ] {
        dict.set_item(key, py.None())?;
    }
    dict.set_item("count", 1)?;
    PyList::new(py, [dict])
}

#[pymethods]
impl Engine {
    /// An engine that protects the built-in domains plus `protect` (Unicode or ACE), and
    /// never flags the domains of `allow` as look-alikes.
    #[new]
    #[pyo3(signature = (protect=None, allow=None))]
    fn new(protect: Option<Vec<String>>, allow: Option<Vec<String>>) -> PyResult<Self> {
        let mut protected = Protected::builtin();
        let mut allowed = Protected::default();
        for (list, domains, what) in [
            (&mut protected, protect, "protect"),
            (&mut allowed, allow, "allow"),
        ] {
            if let Some(domains) = domains {
                list.add_domains(domains.iter().map(String::as_str))
                    .map_err(|(at, message)| {
                        PyValueError::new_err(format!("{what}[{at}]: {message}"))
                    })?;
            }
        }
        let homographs = Homographs::with_suffixes(protected, Suffixes::builtin(), &allowed);
        Ok(Engine {
            homographs: Arc::new(homographs),
            idle: Mutex::new(Vec::new()),
        })
    }

    /// One value (bytes) in `mode`, read in `format_name` (`names` or `log`): (the line
    /// written back, or None in audit mode; the findings as dicts; the reason of the first
    /// conversion error, or None). A value refused whole (`bad-input`) is written back as
    /// it is, with its one finding.
    #[pyo3(signature = (mode_name, race, value, format_name="names"))]
    fn convert<'py>(
        &self,
        py: Python<'py>,
        mode_name: &str,
        race: bool,
        value: &[u8],
        format_name: &str,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let mode = mode(mode_name, race)?;
        let mut converter = self.take(mode, value_format(format_name)?);
        let mut out = Vec::new();
        let (findings, reason) = match converter.convert(value, &mut out) {
            Ok(converted) => (
                findings_list(py, value, &converted),
                converted.error_reason(),
            ),
            Err(refused) => {
                out.extend_from_slice(value);
                (bad_input_list(py, value, &refused), Some(BadInput::REASON))
            }
        };
        self.give_back(converter);
        let written = (mode != Mode::Audit).then(|| PyBytes::new(py, &out));
        PyTuple::new(
            py,
            [
                written.into_pyobject(py)?.into_any(),
                findings?.into_any(),
                reason.into_pyobject(py)?.into_any(),
            ],
        )
    }

    /// A batch: an Arrow string array of any producer (`string`, `large_string`,
    /// `string_view`, or `null`), taken through its `__arrow_c_array__` and checked whole
    /// before any value is read; anything else is a `TypeError`. Values are read in
    /// `format_name` (`names` or `log`). Returns the buffers of the results, as `arrow.rs`
    /// gives them: (the lines written back, or None in audit mode; the reason of each
    /// value's first conversion error; the findings). Private to the package
    /// (`idnscope._arrow`), which passes its arrays.
    #[pyo3(name = "_convert_batch", signature = (mode_name, race, array, format_name="names"))]
    fn convert_batch<'py>(
        &self,
        py: Python<'py>,
        mode_name: &str,
        race: bool,
        array: &Bound<'py, PyAny>,
        format_name: &str,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let mode = mode(mode_name, race)?;
        let format = value_format(format_name)?;
        let input = InputStrings::new(array)?;
        let length = input.len();
        let mut converter = self.take(mode, format);
        let (values, reasons, findings) = py.allow_threads(|| {
            let mut values = (mode != Mode::Audit)
                .then(|| StringColumn::with_capacity(length, input.data_len()));
            let mut reasons = StringColumn::with_capacity(length, 0);
            let mut findings = Findings::default();
            let mut scratch = Vec::new();
            for i in 0..length {
                let Some(value) = input.get(i) else {
                    if let Some(values) = values.as_mut() {
                        values.push_null();
                    }
                    reasons.push_null();
                    findings.push_null();
                    continue;
                };
                scratch.clear();
                let reason = match converter.convert(value, &mut scratch) {
                    Ok(converted) => {
                        findings.push(value, &converted);
                        converted.error_reason()
                    }
                    Err(refused) => {
                        findings.push_bad_input(value, &refused);
                        scratch.extend_from_slice(value);
                        Some(BadInput::REASON)
                    }
                };
                if let Some(values) = values.as_mut() {
                    values.push(&scratch);
                }
                match reason {
                    Some(reason) => reasons.push(reason.as_bytes()),
                    None => reasons.push_null(),
                }
            }
            (values, reasons, findings)
        });
        self.give_back(converter);
        let values = match values {
            Some(values) => values.into_py(py)?.into_any(),
            None => py.None().into_bound(py),
        };
        PyTuple::new(
            py,
            [
                values,
                reasons.into_py(py)?.into_any(),
                findings.into_py(py)?.into_any(),
            ],
        )
    }
}

/// The keys that `audit --group-by BY` groups `names` under (`by`: `domain` or `name`):
/// each one's registrable domain by the built-in Public Suffix List, or the name itself, in
/// lower case, ACE labels decoded, no final dot.
#[pyfunction]
fn group_keys(names: Vec<String>, by: &str) -> PyResult<Vec<String>> {
    let by = match by {
        "domain" => GroupBy::Domain,
        "name" => GroupBy::Name,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "by={other:?}: domain or name"
            )))
        }
    };
    let suffixes = Suffixes::builtin();
    Ok(names
        .iter()
        .map(|name| group_key(by, name, &suffixes))
        .collect())
}

/// The extension module.
#[pymodule]
fn _idnscope(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Engine>()?;
    m.add_function(wrap_pyfunction!(group_keys, m)?)?;
    Ok(())
}
