//! Parsing JSON text into JSON-RPC messages: [`crate::pyjson`] builds the Python values, the
//! rules of [`crate::jsonrpc`] judge them, and the message classes of [`crate::pymessages`]
//! hold them.

use std::cell::RefCell;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::errors::{JsonKind, ProtocolError, RuleError};
use crate::jsonrpc::{classify, MessageClass, MessageShape, ValueKind};
use crate::pyerrors::protocol_error;
use crate::pyjson::{Doc, Failure, JsonReader, ParseFail};
use crate::pymessages::{JsonRpcNotification, JsonRpcRequest, JsonRpcResponse};
use crate::pystrview::{LoneSurrogate, StrSource};
use crate::utf8::{check, Check};

/// The kind of a value built from JSON (exact builtin types).
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

/// The kind of the JSON value whose first byte is `first` (anything else is not JSON and is
/// reported as such before the kind matters).
fn kind_of_first(first: u8) -> JsonKind {
    match first {
        b'{' => JsonKind::Object,
        b'[' => JsonKind::Array,
        b'"' => JsonKind::String,
        b't' | b'f' => JsonKind::Boolean,
        b'n' => JsonKind::Null,
        _ => JsonKind::Number,
    }
}

/// An error object with an integer (not boolean) `"code"` and a string `"message"`.
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

/// The members of a message object the rules look at.
enum Member {
    Jsonrpc,
    Method,
    Id,
    Params,
    Result,
    Error,
    Other,
}

impl Member {
    fn of(key: &[u8]) -> Self {
        match key {
            b"jsonrpc" => Self::Jsonrpc,
            b"method" => Self::Method,
            b"id" => Self::Id,
            b"params" => Self::Params,
            b"result" => Self::Result,
            b"error" => Self::Error,
            _ => Self::Other,
        }
    }
}

/// The members read from one message object (the last one wins for repeated keys, as in
/// `json.loads`). Unknown members are only checked for syntax, never built.
#[derive(Default)]
struct Members<'py> {
    version_ok: bool,
    method: Option<Bound<'py, PyAny>>,
    id: Option<Bound<'py, PyAny>>,
    params: Option<Bound<'py, PyAny>>,
    result: Option<Bound<'py, PyAny>>,
    error: Option<Bound<'py, PyAny>>,
}

/// Reads the message object whose `{` is next; `depth` counts it and the containers around it.
fn read_members<'py>(
    py: Python<'py>,
    doc: &mut Doc<'_, '_>,
    depth: usize,
) -> Result<Members<'py>, ParseFail> {
    let mut members = Members::default();
    let mut more = doc.first_key()?;
    while more {
        let member = Member::of(doc.str_bytes());
        let first = doc.peek()?;
        match member {
            Member::Jsonrpc if first == b'"' => {
                doc.string()?;
                members.version_ok = doc.str_bytes() == b"2.0";
            }
            Member::Jsonrpc => {
                doc.skip(py, first, depth)?;
                members.version_ok = false;
            }
            Member::Method if first == b'"' => {
                // method names repeat: share their str objects like keys
                doc.string()?;
                members.method = Some(doc.py_str(py, true)?.into_any());
            }
            Member::Method => members.method = Some(doc.value(py, first, depth)?),
            Member::Id => members.id = Some(doc.value(py, first, depth)?),
            Member::Params => members.params = Some(doc.value(py, first, depth)?),
            Member::Result => members.result = Some(doc.value(py, first, depth)?),
            Member::Error => members.error = Some(doc.value(py, first, depth)?),
            Member::Other => doc.skip(py, first, depth)?,
        }
        more = doc.next_key()?;
    }
    Ok(members)
}

/// Judges the members of one message and builds its message class.
fn build_message<'py>(
    py: Python<'py>,
    m: Members<'py>,
) -> PyResult<Result<Bound<'py, PyAny>, RuleError>> {
    let shape = MessageShape {
        version_ok: m.version_ok,
        method: m.method.as_ref().map(kind_of),
        id: m.id.as_ref().map(kind_of),
        params: m.params.as_ref().map(kind_of),
        has_result: m.result.is_some(),
        error_ok: match &m.error {
            Some(e) => Some(error_object_ok(py, e)?),
            None => None,
        },
    };
    let class = match classify(&shape) {
        Ok(class) => class,
        Err(rule) => return Ok(Err(rule)),
    };
    let none = || py.None();
    let params = m
        .params
        .filter(|p| !p.is_none())
        .map_or_else(none, Bound::unbind);
    let message = match class {
        MessageClass::Request => Bound::new(
            py,
            JsonRpcRequest {
                id: m.id.map_or_else(none, Bound::unbind),
                method: m.method.map_or_else(none, Bound::unbind),
                params,
            },
        )?
        .into_any(),
        MessageClass::Notification => Bound::new(
            py,
            JsonRpcNotification {
                method: m.method.map_or_else(none, Bound::unbind),
                params,
            },
        )?
        .into_any(),
        MessageClass::Response { is_error } => {
            let (result, error) = if is_error {
                (none(), m.error.map_or_else(none, Bound::unbind))
            } else {
                (m.result.map_or_else(none, Bound::unbind), none())
            };
            Bound::new(
                py,
                JsonRpcResponse {
                    id: m.id.map_or_else(none, Bound::unbind),
                    result,
                    error,
                },
            )?
            .into_any()
        }
    };
    Ok(Ok(message))
}

/// Reads one message object and judges it.
fn read_message<'py>(
    py: Python<'py>,
    doc: &mut Doc<'_, '_>,
    depth: usize,
) -> Result<Result<Bound<'py, PyAny>, RuleError>, ParseFail> {
    let members = read_members(py, doc, depth)?;
    Ok(build_message(py, members)?)
}

/// The messages of a document: a single one is kept out of a `Vec`.
enum Batch<'py> {
    One(Bound<'py, PyAny>),
    Many(Vec<Bound<'py, PyAny>>),
}

/// The whole document: every byte is parsed before a rule error is reported, so text that is
/// not JSON is always "invalid JSON".
fn read_document<'py>(
    py: Python<'py>,
    doc: &mut Doc<'_, '_>,
) -> Result<Result<Batch<'py>, ProtocolError>, ParseFail> {
    let first = doc.peek()?;
    match first {
        b'{' => Ok(read_message(py, doc, 1)?
            .map(Batch::One)
            .map_err(ProtocolError::Message)),
        b'[' => {
            let mut next = doc.first_item()?;
            if next.is_none() {
                return Ok(Err(ProtocolError::EmptyBatch));
            }
            let mut messages = Vec::new();
            let mut failure = None;
            let mut index = 0;
            while let Some(first) = next {
                if failure.is_some() {
                    doc.skip(py, first, 1)?;
                } else if first == b'{' {
                    match read_message(py, doc, 2)? {
                        Ok(message) => messages.push(message),
                        Err(rule) => failure = Some(ProtocolError::BatchItem { index, rule }),
                    }
                } else {
                    let rule = RuleError::NotAnObject(kind_of_first(first));
                    failure = Some(ProtocolError::BatchItem { index, rule });
                    doc.skip(py, first, 1)?;
                }
                index += 1;
                next = doc.next_item()?;
            }
            Ok(failure.map_or(Ok(Batch::Many(messages)), Err))
        }
        _ => {
            doc.skip(py, first, 0)?;
            Ok(Err(ProtocolError::Message(RuleError::NotAnObject(
                kind_of_first(first),
            ))))
        }
    }
}

/// Parses JSON bytes (valid UTF-8) into a tuple of messages. The outer error is a Python
/// failure (out of memory and the like), the inner one a protocol error to report.
pub(crate) fn messages_from_json<'py>(
    py: Python<'py>,
    reader: &mut JsonReader,
    json: &[u8],
) -> PyResult<Result<Bound<'py, PyTuple>, ProtocolError>> {
    messages_from_doc(py, reader.begin(json))
}

/// [`messages_from_json`] for a document being read.
fn messages_from_doc<'py>(
    py: Python<'py>,
    mut doc: Doc<'_, '_>,
) -> PyResult<Result<Bound<'py, PyTuple>, ProtocolError>> {
    let read = read_document(py, &mut doc).and_then(|r| doc.end().map(|()| r));
    match read {
        Ok(Ok(Batch::One(message))) => Ok(Ok(PyTuple::new(py, [message])?)),
        Ok(Ok(Batch::Many(messages))) => Ok(Ok(PyTuple::new(py, messages)?)),
        Ok(Err(e)) => Ok(Err(e)),
        Err(ParseFail(fail)) => match *fail {
            Failure::Json(detail) => Ok(Err(ProtocolError::InvalidJson(detail))),
            Failure::Py(e) => Err(e),
        },
    }
}

thread_local! {
    /// The reader (key cache and buffers) of `parse_jsonrpc_line` and of the SSE decoders'
    /// JSON-RPC events, kept per thread: one made per parse would cost more than a small
    /// message's parse (its key cache is made and dropped whole).
    static READER: RefCell<Option<JsonReader>> = const { RefCell::new(None) };
}

/// `parse` run with this thread's reader. The reader is taken out of its cell, not borrowed,
/// so that a nested call (from a `__del__` run meanwhile) cannot find it in use: that one gets
/// a reader of its own.
pub(crate) fn with_reader<R>(parse: impl FnOnce(&mut JsonReader) -> R) -> R {
    let mut reader = READER.with(|r| r.borrow_mut().take()).unwrap_or_default();
    let result = parse(&mut reader);
    reader.trim();
    READER.with(|r| *r.borrow_mut() = Some(reader));
    result
}

/// Parse one JSON text (a message or a batch array) into typed messages.
#[pyfunction]
pub fn parse_jsonrpc_line<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyTuple>> {
    let lone_surrogate = || {
        protocol_error(&ProtocolError::InvalidJson(
            "the text contains a lone surrogate".into(),
        ))
    };
    let result = with_reader(|reader| {
        if let Ok(s) = text.cast::<PyString>() {
            match StrSource::of(s) {
                // non-ASCII text: parsed in the str's own layout, no UTF-8 copy made
                Some(source) => match reader.begin_str(source) {
                    Ok(doc) => messages_from_doc(py, doc),
                    Err(LoneSurrogate) => Err(lone_surrogate()),
                },
                // ASCII: its UTF-8 form is its data
                None => match s.to_str() {
                    Ok(s) => messages_from_json(py, reader, s.as_bytes()),
                    Err(_) => Err(lone_surrogate()),
                },
            }
        } else if let Ok(b) = text.cast::<PyBytes>() {
            let bytes = b.as_bytes();
            // The strings' UTF-8 is checked as they are read (no pass over the whole text first:
            // its ASCII strings need none); when the text is refused for any reason, bytes that are
            // not UTF-8 are what is reported, wherever they are, as a check made first would.
            match messages_from_doc(py, reader.begin_unchecked(bytes)) {
                Ok(Ok(messages)) => Ok(Ok(messages)),
                refused => match check(bytes) {
                    Check::Invalid { valid_up_to } | Check::Truncated { valid_up_to } => {
                        Err(protocol_error(&ProtocolError::InvalidJson(format!(
                            "invalid UTF-8 at byte offset {valid_up_to}"
                        ))))
                    }
                    Check::Valid => refused,
                },
            }
        } else {
            Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "parse_jsonrpc_line() takes str or bytes, not {}",
                text.get_type().name()?
            )))
        }
    })?;
    result.map_err(|e| protocol_error(&e))
}
