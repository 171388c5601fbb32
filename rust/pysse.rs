//! `SseDecoder` and the events it returns, over [`crate::sse::SseCore`]: one call per chunk,
//! Python objects built straight from the decoder's buffers.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use crate::errors::StreamError;
use crate::jsonrpc::is_blank;
use crate::pyerrors::{protocol_error, stream_error};
use crate::pyjson::JsonReader;
use crate::pyjsonrpc::{messages_from_json, with_reader};
use crate::pyrecord::py_record;
use crate::pystr::str_from_utf8;
use crate::sse::{EventSink, EventView, SseCore, DEFAULT_MAX_EVENT_BYTES};

/// An argument that may be left out; any value given (`None` too) is kept as it is.
struct Given(Option<Py<PyAny>>);

impl<'a, 'py> FromPyObject<'a, 'py> for Given {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(Self(Some(value.to_owned().unbind())))
    }
}

py_record! {
    /// One dispatched Server-Sent Event.
    SseEvent { event: Py<PyAny>, data: Py<PyAny>, id: Py<PyAny>, retry: Py<PyAny> }

    #[new]
    #[pyo3(signature = (*, event = None, data = Given(None), id = None, retry = None))]
    fn new(
        py: Python<'_>,
        event: Option<Py<PyAny>>,
        data: Given,
        id: Option<Py<PyAny>>,
        retry: Option<Py<PyAny>>,
    ) -> Self {
        Self {
            event: event.unwrap_or_else(|| py.None()),
            // `data` defaults to "", but an explicit None is stored as given
            data: data
                .0
                .unwrap_or_else(|| intern!(py, "").clone().into_any().unbind()),
            id: id.unwrap_or_else(|| py.None()),
            retry: retry.unwrap_or_else(|| py.None()),
        }
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        PyTuple::new(py, [&self.event, &self.data, &self.id, &self.retry])?.hash()
    }
}

py_record! {
    /// The JSON-RPC content of one SSE event, from `SseDecoder.feed_jsonrpc`.
    JsonRpcEvent { id: Py<PyAny>, event: Py<PyAny>, messages: Py<PyTuple>, error: Py<PyAny> }
    custom_eq;

    /// Equal when id, event and messages are equal and both errors are None, or both are
    /// errors with the same class and message.
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<bool> {
        let other = other.get();
        if !(self.id.bind(py).eq(&other.id)?
            && self.event.bind(py).eq(&other.event)?
            && self.messages.bind(py).eq(&other.messages)?)
        {
            return Ok(false);
        }
        let (mine, theirs) = (self.error.bind(py), other.error.bind(py));
        match (mine.is_none(), theirs.is_none()) {
            (true, true) => Ok(true),
            (false, false) => {
                Ok(mine.get_type().is(theirs.get_type())
                    && mine.str()?.as_any().eq(theirs.str()?)?)
            }
            _ => Ok(false),
        }
    }
}

/// An optional UTF-8 field value as `str | None`, the usual event type as one shared object.
fn opt_str(py: Python<'_>, value: Option<&[u8]>) -> PyResult<Py<PyAny>> {
    Ok(match value {
        None => py.None(),
        Some(b"message") => intern!(py, "message").clone().into_any().unbind(),
        Some(s) => str_from_utf8(py, s, s.is_ascii())?.into_any().unbind(),
    })
}

/// Collects the Python objects for dispatched events; a Python failure (out of memory and the
/// like) stops the building and is raised at the end of the call.
struct Collector<'py, F> {
    py: Python<'py>,
    build: F,
    /// Events the decoder dispatched, skipped ones included.
    dispatched: usize,
    items: Vec<Bound<'py, PyAny>>,
    failure: Option<PyErr>,
}

impl<'py, F> EventSink for Collector<'py, F>
where
    F: FnMut(Python<'py>, &EventView<'_>) -> PyResult<Option<Bound<'py, PyAny>>>,
{
    fn dispatch(&mut self, event: &EventView<'_>) {
        self.dispatched += 1;
        if self.failure.is_some() {
            return;
        }
        match (self.build)(self.py, event) {
            Ok(Some(item)) => self.items.push(item),
            Ok(None) => {}
            Err(e) => self.failure = Some(e),
        }
    }
}

impl<'py, F> Collector<'py, F> {
    fn new(py: Python<'py>, build: F) -> Self {
        Self {
            py,
            build,
            dispatched: 0,
            items: Vec::new(),
            failure: None,
        }
    }

    /// The call's result: its items, or the error if no event came before it (otherwise the
    /// decoder, now failed, raises it on the next call).
    fn finish(self, result: Result<(), StreamError>) -> PyResult<Bound<'py, PyList>> {
        if let Some(failure) = self.failure {
            return Err(failure);
        }
        match result {
            Err(e) if self.dispatched == 0 => Err(stream_error(&e)),
            // most calls on small chunks complete no event
            _ if self.items.is_empty() => Ok(PyList::empty(self.py)),
            _ => PyList::new(self.py, self.items),
        }
    }
}

fn sse_event<'py>(py: Python<'py>, event: &EventView<'_>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let item = SseEvent {
        event: opt_str(py, event.event)?,
        data: if event.data.is_ascii() {
            str_from_utf8(py, event.data, true)?
        } else {
            // CPython's decoder is the faster one on long, mostly ASCII text
            PyString::from_bytes(py, event.data)?
        }
        .into_any()
        .unbind(),
        id: opt_str(py, event.id)?,
        retry: match event.retry {
            Some(ms) => ms.into_pyobject(py)?.into_any().unbind(),
            None => py.None(),
        },
    };
    Ok(Some(Bound::new(py, item)?.into_any()))
}

fn jsonrpc_event<'py>(
    py: Python<'py>,
    reader: &mut JsonReader,
    event: &EventView<'_>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    if !matches!(event.event, None | Some(b"" | b"message")) || is_blank(event.data) {
        return Ok(None);
    }
    let (messages, error) = match messages_from_json(py, reader, event.data)? {
        Ok(messages) => (messages, py.None()),
        Err(e) => (
            PyTuple::empty(py),
            protocol_error(&e).into_value(py).into_any(),
        ),
    };
    let item = JsonRpcEvent {
        id: opt_str(py, event.id)?,
        event: opt_str(py, event.event)?,
        messages: messages.unbind(),
        error,
    };
    Ok(Some(Bound::new(py, item)?.into_any()))
}

/// The cap on one event of a `max_event_bytes` argument (`None`: no cap).
fn event_limit(max_event_bytes: Option<i128>) -> PyResult<Option<usize>> {
    match max_event_bytes {
        None => Ok(None),
        Some(n) if n <= 0 => Err(pyo3::exceptions::PyValueError::new_err(
            "max_event_bytes must be a positive integer or None",
        )),
        Some(n) => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
    }
}

/// Keeps the one JSON-RPC message of a whole stream (`sole_sse_message`); `other` once the
/// stream holds anything else that `feed_jsonrpc` would return.
struct Sole<'py, 'r> {
    py: Python<'py>,
    reader: &'r mut JsonReader,
    message: Option<Bound<'py, PyAny>>,
    other: bool,
    failure: Option<PyErr>,
}

impl EventSink for Sole<'_, '_> {
    fn dispatch(&mut self, event: &EventView<'_>) {
        // the events `jsonrpc_event` skips (their id, if any, shows in the decoder's state)
        if !matches!(event.event, None | Some(b"" | b"message")) || is_blank(event.data) {
            return;
        }
        if self.other || self.failure.is_some() || self.message.is_some() {
            self.other = true;
            return;
        }
        match messages_from_json(self.py, self.reader, event.data) {
            Ok(Ok(messages)) if messages.len() == 1 => match messages.get_item(0) {
                Ok(message) => self.message = Some(message),
                Err(e) => self.failure = Some(e),
            },
            Ok(_) => self.other = true,
            Err(e) => self.failure = Some(e),
        }
    }
}

/// The JSON-RPC message of a whole event stream (`body`, to its end) that holds just that:
/// what a new `SseDecoder(max_event_bytes)` fed `body` and finished returns as one
/// `JsonRpcEvent` holding one message and no error, with no event id and no retry set.
/// `None` for any other stream (an error, another event, a batch, an id): the caller decodes
/// it with an `SseDecoder`.
#[pyfunction]
#[pyo3(signature = (body, max_event_bytes = Some(DEFAULT_MAX_EVENT_BYTES as i128)))]
pub fn sole_sse_message<'py>(
    py: Python<'py>,
    body: &[u8],
    max_event_bytes: Option<i128>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let mut core = SseCore::new(event_limit(max_event_bytes)?);
    with_reader(|reader| {
        let mut sole = Sole {
            py,
            reader,
            message: None,
            other: false,
            failure: None,
        };
        let ended = core
            .feed(body, &mut sole)
            .and_then(|()| core.finish(&mut sole));
        if let Some(failure) = sole.failure {
            return Err(failure);
        }
        let plain = ended.is_ok()
            && !sole.other
            && core.last_event_id().is_none()
            && core.retry_ms().is_none();
        Ok(sole.message.filter(|_| plain))
    })
}

/// Incremental Server-Sent Events decoder, one call per body chunk.
#[pyclass(module = "mcpstream._native")]
pub struct SseDecoder {
    core: SseCore,
}

#[pymethods]
impl SseDecoder {
    #[new]
    #[pyo3(signature = (max_event_bytes = Some(DEFAULT_MAX_EVENT_BYTES as i128)))]
    fn new(max_event_bytes: Option<i128>) -> PyResult<Self> {
        Ok(Self {
            core: SseCore::new(event_limit(max_event_bytes)?),
        })
    }

    /// Take the next chunk of body bytes; return the events it completed, in order.
    fn feed<'py>(&mut self, py: Python<'py>, chunk: &[u8]) -> PyResult<Bound<'py, PyList>> {
        let mut sink = Collector::new(py, sse_event);
        let result = self.core.feed(chunk, &mut sink);
        sink.finish(result)
    }

    /// End of stream: process any partial line and dispatch a pending event.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut sink = Collector::new(py, sse_event);
        let result = self.core.finish(&mut sink);
        sink.finish(result)
    }

    /// Like `feed`, but return the JSON-RPC content of the completed events.
    fn feed_jsonrpc<'py>(&mut self, py: Python<'py>, chunk: &[u8]) -> PyResult<Bound<'py, PyList>> {
        with_reader(|reader| {
            let mut sink = Collector::new(py, |py, event: &EventView<'_>| {
                jsonrpc_event(py, reader, event)
            });
            let result = self.core.feed(chunk, &mut sink);
            sink.finish(result)
        })
    }

    /// `finish` with the same JSON-RPC treatment as `feed_jsonrpc`.
    fn finish_jsonrpc<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        with_reader(|reader| {
            let mut sink = Collector::new(py, |py, event: &EventView<'_>| {
                jsonrpc_event(py, reader, event)
            });
            let result = self.core.finish(&mut sink);
            sink.finish(result)
        })
    }

    /// True while a line is partly received or a non-comment line has been seen since the last
    /// dispatch or blank line.
    #[getter]
    fn event_in_progress(&self) -> bool {
        self.core.event_in_progress()
    }

    /// The id of the most recent dispatched event that set one.
    #[getter]
    fn last_event_id(&self) -> Option<&str> {
        self.core.last_event_id()
    }

    /// The last valid `retry` value seen.
    #[getter]
    fn retry_ms(&self) -> Option<u64> {
        self.core.retry_ms()
    }
}
