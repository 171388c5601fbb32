//! JSON-RPC messages as Python objects: the message classes, and parsing JSON bytes into them
//! (jiter builds the Python values; the rules of [`crate::jsonrpc`] judge them).

use jiter::{FloatMode, PartialMode, PythonParse, StringCacheMode};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::errors::{ProtocolError, RuleError};
use crate::jsonrpc::{classify, MessageClass, MessageShape, ValueKind};
use crate::pyerrors::protocol_error;
use crate::utf8::{check, Check};

/// `repr(value)` as a Rust string.
pub(crate) fn repr(value: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(value.repr()?.to_cow()?.into_owned())
}

/// A JSON-RPC request: has `method` and an `id` (`int` or `str`).
#[pyclass(frozen, module = "mcpstream._native")]
pub struct JsonRpcRequest {
    #[pyo3(get)]
    pub(crate) id: Py<PyAny>,
    #[pyo3(get)]
    pub(crate) method: Py<PyAny>,
    #[pyo3(get)]
    pub(crate) params: Py<PyAny>,
}

#[pymethods]
impl JsonRpcRequest {
    #[new]
    #[pyo3(signature = (*, id, method, params = None))]
    fn new(py: Python<'_>, id: Py<PyAny>, method: Py<PyAny>, params: Option<Py<PyAny>>) -> Self {
        Self {
            id,
            method,
            params: params.unwrap_or_else(|| py.None()),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "JsonRpcRequest(id={}, method={}, params={})",
            repr(self.id.bind(py))?,
            repr(self.method.bind(py))?,
            repr(self.params.bind(py))?
        ))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<bool> {
        let other = other.get();
        Ok(self.id.bind(py).eq(&other.id)?
            && self.method.bind(py).eq(&other.method)?
            && self.params.bind(py).eq(&other.params)?)
    }
}

/// A JSON-RPC notification: has `method` and no `id`.
#[pyclass(frozen, module = "mcpstream._native")]
pub struct JsonRpcNotification {
    #[pyo3(get)]
    pub(crate) method: Py<PyAny>,
    #[pyo3(get)]
    pub(crate) params: Py<PyAny>,
}

#[pymethods]
impl JsonRpcNotification {
    #[new]
    #[pyo3(signature = (*, method, params = None))]
    fn new(py: Python<'_>, method: Py<PyAny>, params: Option<Py<PyAny>>) -> Self {
        Self {
            method,
            params: params.unwrap_or_else(|| py.None()),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "JsonRpcNotification(method={}, params={})",
            repr(self.method.bind(py))?,
            repr(self.params.bind(py))?
        ))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<bool> {
        let other = other.get();
        Ok(self.method.bind(py).eq(&other.method)? && self.params.bind(py).eq(&other.params)?)
    }
}

/// A JSON-RPC response: exactly one of `result` / `error` was present.
#[pyclass(frozen, module = "mcpstream._native")]
pub struct JsonRpcResponse {
    #[pyo3(get)]
    pub(crate) id: Py<PyAny>,
    #[pyo3(get)]
    pub(crate) result: Py<PyAny>,
    #[pyo3(get)]
    pub(crate) error: Py<PyAny>,
}

#[pymethods]
impl JsonRpcResponse {
    #[new]
    #[pyo3(signature = (*, id, result = None, error = None))]
    fn new(
        py: Python<'_>,
        id: Py<PyAny>,
        result: Option<Py<PyAny>>,
        error: Option<Py<PyAny>>,
    ) -> Self {
        Self {
            id,
            result: result.unwrap_or_else(|| py.None()),
            error: error.unwrap_or_else(|| py.None()),
        }
    }

    /// True when this response carries an `error` object.
    #[getter]
    fn is_error(&self, py: Python<'_>) -> bool {
        !self.error.is_none(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "JsonRpcResponse(id={}, result={}, error={})",
            repr(self.id.bind(py))?,
            repr(self.result.bind(py))?,
            repr(self.error.bind(py))?
        ))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<bool> {
        let other = other.get();
        Ok(self.id.bind(py).eq(&other.id)?
            && self.result.bind(py).eq(&other.result)?
            && self.error.bind(py).eq(&other.error)?)
    }
}

/// jiter as the contract wants it: no NaN or Infinity, floats as `float`, strings cached.
const PARSER: PythonParse = PythonParse {
    allow_inf_nan: false,
    cache_mode: StringCacheMode::All,
    partial_mode: PartialMode::Off,
    catch_duplicate_keys: false,
    float_mode: FloatMode::Float,
};

/// The kind of a value jiter built (exact builtin types).
fn kind_of(value: &Bound<'_, PyAny>) -> ValueKind {
    if value.is_instance_of::<PyString>() {
        ValueKind::String
    } else if value.is_instance_of::<PyDict>() {
        ValueKind::Object
    } else if value.is_instance_of::<PyBool>() {
        ValueKind::Bool
    } else if value.is_instance_of::<PyInt>() {
        ValueKind::Integer
    } else if value.is_instance_of::<PyList>() {
        ValueKind::Array
    } else if value.is_instance_of::<PyFloat>() {
        ValueKind::Float
    } else {
        ValueKind::Null
    }
}

/// An error object with an integer `"code"` and a string `"message"`.
fn error_object_ok(py: Python<'_>, error: &Bound<'_, PyAny>) -> PyResult<bool> {
    let Ok(error) = error.cast::<PyDict>() else {
        return Ok(false);
    };
    let code_ok = error
        .get_item(intern!(py, "code"))?
        .is_some_and(|code| kind_of(&code) == ValueKind::Integer);
    let message_ok = error
        .get_item(intern!(py, "message"))?
        .is_some_and(|message| message.is_instance_of::<PyString>());
    Ok(code_ok && message_ok)
}

/// Judges one parsed message object and builds its message class.
fn message_from_dict<'py>(
    dict: &Bound<'py, PyDict>,
) -> PyResult<Result<Bound<'py, PyAny>, RuleError>> {
    let py = dict.py();
    let version = dict.get_item(intern!(py, "jsonrpc"))?;
    let method = dict.get_item(intern!(py, "method"))?;
    let id = dict.get_item(intern!(py, "id"))?;
    let params = dict.get_item(intern!(py, "params"))?;
    let result = dict.get_item(intern!(py, "result"))?;
    let error = dict.get_item(intern!(py, "error"))?;
    let version_ok = match &version {
        Some(v) => match v.cast::<PyString>() {
            Ok(s) => s.to_str().is_ok_and(|s| s == "2.0"),
            Err(_) => false,
        },
        None => false,
    };
    let shape = MessageShape {
        version_ok,
        method: method.as_ref().map(kind_of),
        id: id.as_ref().map(kind_of),
        params: params.as_ref().map(kind_of),
        has_result: result.is_some(),
        error_ok: match &error {
            Some(e) => Some(error_object_ok(py, e)?),
            None => None,
        },
    };
    let class = match classify(&shape) {
        Ok(class) => class,
        Err(rule) => return Ok(Err(rule)),
    };
    let none = || py.None();
    let params = params
        .filter(|p| !p.is_none())
        .map_or_else(none, Bound::unbind);
    let message = match class {
        MessageClass::Request => Bound::new(
            py,
            JsonRpcRequest {
                id: id.map_or_else(none, Bound::unbind),
                method: method.map_or_else(none, Bound::unbind),
                params,
            },
        )?
        .into_any(),
        MessageClass::Notification => Bound::new(
            py,
            JsonRpcNotification {
                method: method.map_or_else(none, Bound::unbind),
                params,
            },
        )?
        .into_any(),
        MessageClass::Response { is_error } => Bound::new(
            py,
            JsonRpcResponse {
                id: id.map_or_else(none, Bound::unbind),
                result: if is_error {
                    none()
                } else {
                    result.map_or_else(none, Bound::unbind)
                },
                error: if is_error {
                    error.map_or_else(none, Bound::unbind)
                } else {
                    none()
                },
            },
        )?
        .into_any(),
    };
    Ok(Ok(message))
}

/// Parses JSON bytes (valid UTF-8) into a tuple of messages. The outer error is a Python
/// failure (out of memory and the like), the inner one a protocol error to report.
pub(crate) fn messages_from_json<'py>(
    py: Python<'py>,
    json: &[u8],
) -> PyResult<Result<Bound<'py, PyTuple>, ProtocolError>> {
    let value = match PARSER.python_parse(py, json) {
        Ok(value) => value,
        Err(e) => return Ok(Err(ProtocolError::InvalidJson(e.description(json)))),
    };
    if let Ok(dict) = value.cast::<PyDict>() {
        return Ok(match message_from_dict(dict)? {
            Ok(message) => Ok(PyTuple::new(py, [message])?),
            Err(rule) => Err(ProtocolError::Message(rule)),
        });
    }
    let Ok(batch) = value.cast::<PyList>() else {
        let kind = kind_of(&value).json_kind();
        return Ok(Err(ProtocolError::Message(RuleError::NotAnObject(kind))));
    };
    if batch.is_empty() {
        return Ok(Err(ProtocolError::EmptyBatch));
    }
    let mut messages = Vec::with_capacity(batch.len());
    for (index, item) in batch.iter().enumerate() {
        let rule = match item.cast::<PyDict>() {
            Ok(dict) => match message_from_dict(dict)? {
                Ok(message) => {
                    messages.push(message);
                    continue;
                }
                Err(rule) => rule,
            },
            Err(_) => RuleError::NotAnObject(kind_of(&item).json_kind()),
        };
        return Ok(Err(ProtocolError::BatchItem { index, rule }));
    }
    Ok(Ok(PyTuple::new(py, messages)?))
}

/// Parse one JSON text (a message or a batch array) into typed messages.
#[pyfunction]
pub fn parse_jsonrpc_line<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyTuple>> {
    let json: &[u8] = if let Ok(s) = text.cast::<PyString>() {
        match s.to_str() {
            Ok(s) => s.as_bytes(),
            Err(_) => {
                return Err(protocol_error(&ProtocolError::InvalidJson(
                    "the text contains a lone surrogate".into(),
                )))
            }
        }
    } else if let Ok(b) = text.cast::<PyBytes>() {
        let bytes = b.as_bytes();
        if let Check::Invalid { valid_up_to } | Check::Truncated { valid_up_to } = check(bytes) {
            return Err(protocol_error(&ProtocolError::InvalidJson(format!(
                "invalid UTF-8 at byte offset {valid_up_to}"
            ))));
        }
        bytes
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "parse_jsonrpc_line() takes str or bytes, not {}",
            text.get_type().name()?
        )));
    };
    messages_from_json(py, json)?.map_err(|e| protocol_error(&e))
}
