//! `Http1Response` and `encode_request_head`: the Python face of [`crate::http1`].

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use crate::http1::{
    encode_request_head as encode_head, ResponseCore, DEFAULT_MAX_HEADERS, DEFAULT_MAX_HEAD_BYTES,
};
use crate::pyerrors::http1_error;

/// One HTTP/1.1 response, framed from the bytes of a connection as they arrive (no I/O).
#[pyclass(module = "mcpstream._native")]
pub struct Http1Response {
    core: ResponseCore,
}

#[pymethods]
impl Http1Response {
    #[new]
    #[pyo3(signature = (head_request = false, max_head_bytes = DEFAULT_MAX_HEAD_BYTES, max_headers = DEFAULT_MAX_HEADERS))]
    fn new(head_request: bool, max_head_bytes: usize, max_headers: usize) -> PyResult<Self> {
        if max_head_bytes == 0 || max_headers == 0 {
            return Err(PyValueError::new_err(
                "max_head_bytes and max_headers must be positive integers",
            ));
        }
        Ok(Self {
            core: ResponseCore::new(head_request, max_head_bytes, max_headers),
        })
    }

    /// Take the next bytes read from the connection; return the body data they complete.
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyBytes>,
    ) -> PyResult<Bound<'py, PyList>> {
        let body = PyList::empty(py);
        let bytes = data.as_bytes();
        let mut failed = None;
        let result = self.core.feed(bytes, &mut |piece| {
            if failed.is_some() {
                return;
            }
            // a read that is all body data is handed on as it is, not copied
            let appended = if piece.as_ptr() == bytes.as_ptr() && piece.len() == bytes.len() {
                body.append(data)
            } else {
                body.append(PyBytes::new(py, piece))
            };
            failed = appended.err();
        });
        result.map_err(|e| http1_error(&e))?;
        match failed {
            Some(error) => Err(error),
            None => Ok(body),
        }
    }

    /// How many of the next bytes of the connection are body data for sure: what is left of a
    /// `Content-Length` body or of the chunk being read (0 anywhere else).
    #[getter]
    fn body_ahead(&self) -> u64 {
        self.core.body_ahead()
    }

    /// Take `count` bytes of body data read past `feed` (straight into a buffer of the
    /// caller's); `count` must not pass `body_ahead`.
    fn skip_body(&mut self, count: u64) -> PyResult<()> {
        if self.core.skip_body(count) {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!(
                "skip_body({count}) passes the {} bytes of body data ahead",
                self.core.body_ahead()
            )))
        }
    }

    /// The connection closed (EOF): ends a body read until the close, or raises.
    fn feed_eof(&mut self) -> PyResult<()> {
        self.core.feed_eof().map_err(|e| http1_error(&e))
    }

    /// The final status code, `None` until the final head has arrived.
    #[getter]
    fn status(&self) -> Option<u16> {
        self.core.head().map(|head| head.status)
    }

    /// The reason phrase as received, `None` until the final head has arrived.
    #[getter]
    fn reason<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.core.head().map(|head| PyBytes::new(py, &head.reason))
    }

    /// `b"HTTP/1.1"` or `b"HTTP/1.0"`, `None` until the final head has arrived.
    #[getter]
    fn http_version<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.core.head().map(|head| {
            PyBytes::new(
                py,
                if head.version == 0 {
                    b"HTTP/1.0"
                } else {
                    b"HTTP/1.1"
                },
            )
        })
    }

    /// The header fields `(name, value)` in order, `None` until the final head has arrived.
    #[getter]
    fn headers<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        let Some(head) = self.core.head() else {
            return Ok(None);
        };
        let list = PyList::empty(py);
        for (name, value) in &head.headers {
            list.append(PyTuple::new(
                py,
                [PyBytes::new(py, name), PyBytes::new(py, value)],
            )?)?;
        }
        Ok(Some(list))
    }

    /// The header fields as a dict: names in lower case, the values of a repeated name joined
    /// with `", "` (what `dict(httpx.Headers(headers).items())` gives), when every name and
    /// value is ASCII; `None` otherwise (the stack's `Headers` decode the others), and until the
    /// final head has arrived.
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(head) = self.core.head() else {
            return Ok(None);
        };
        if !head
            .headers
            .iter()
            .all(|(name, value)| name.is_ascii() && value.is_ascii())
        {
            return Ok(None);
        }
        let dict = PyDict::new(py);
        for (name, value) in &head.headers {
            // ASCII, checked above: valid UTF-8
            let key = field_name(py, name)?;
            let text =
                std::str::from_utf8(value).map_err(|e| PyValueError::new_err(e.to_string()))?;
            match dict.get_item(&key)? {
                Some(known) => {
                    let joined = format!("{}, {}", known.cast::<PyString>()?.to_str()?, text);
                    dict.set_item(key, joined)?;
                }
                None => dict.set_item(key, text)?,
            }
        }
        Ok(Some(dict))
    }

    /// How the body is delimited: `"empty"`, `"content-length"`, `"chunked"` or `"close"`.
    #[getter]
    fn framing(&self) -> Option<&'static str> {
        self.core.framing().map(|framing| framing.name())
    }

    /// Whether the whole response has been read.
    #[getter]
    fn complete(&self) -> bool {
        self.core.is_complete()
    }

    /// Whether the connection may carry another request.
    #[getter]
    fn keep_alive(&self) -> bool {
        self.core.keep_alive()
    }

    /// The bytes received past the end of the response.
    #[getter]
    fn trailing<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.core.trailing())
    }
}

/// The head of an HTTP/1.1 request: request line, fields, `Content-Length` when given, blank line.
#[pyfunction]
#[pyo3(signature = (method, target, headers, content_length = None))]
pub fn encode_request_head<'py>(
    py: Python<'py>,
    method: &[u8],
    target: &[u8],
    headers: &Bound<'py, PyAny>,
    content_length: Option<u64>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut fields: Vec<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> = Vec::new();
    for item in headers.try_iter()? {
        let item = item?;
        let pair = item
            .cast::<PyTuple>()
            .ok()
            .filter(|pair| pair.len() == 2)
            .and_then(|pair| {
                let name = pair.get_item(0).ok()?.cast_into::<PyBytes>().ok()?;
                let value = pair.get_item(1).ok()?.cast_into::<PyBytes>().ok()?;
                Some((name, value))
            })
            .ok_or_else(|| {
                PyTypeError::new_err("each header must be a (name, value) tuple of bytes")
            })?;
        fields.push(pair);
    }
    let pairs: Vec<(&[u8], &[u8])> = fields
        .iter()
        .map(|(name, value)| (name.as_bytes(), value.as_bytes()))
        .collect();
    let mut out = Vec::new();
    encode_head(&mut out, method, target, &pairs, content_length)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &out))
}

/// The Python string of the field `name` (ASCII), in lower case: for the names MCP's answers
/// carry, the one interned string of each (made once; its hash kept), else a new one.
fn field_name<'py>(py: Python<'py>, name: &[u8]) -> PyResult<Bound<'py, PyString>> {
    macro_rules! known {
        ($($known:literal),* $(,)?) => {
            $(
                if name.eq_ignore_ascii_case($known.as_bytes()) {
                    return Ok(pyo3::intern!(py, $known).clone());
                }
            )*
        };
    }
    known!(
        "content-type",
        "content-length",
        "transfer-encoding",
        "mcp-session-id",
        "mcp-protocol-version",
        "cache-control",
        "connection",
        "keep-alive",
        "content-encoding",
        "date",
        "server",
        "vary",
        "set-cookie",
        "www-authenticate",
        "location",
        "x-accel-buffering",
    );
    let lower = name.to_ascii_lowercase();
    let text = std::str::from_utf8(&lower).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(PyString::new(py, text))
}
