//! `Utf8Decoder`: the Python face of [`crate::utf8::Utf8Core`].

use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::pyerrors::stream_error;
use crate::utf8::Utf8Core;

/// Incremental, strict UTF-8 decoder for body chunks.
#[pyclass(module = "mcpstream._native")]
pub struct Utf8Decoder {
    core: Utf8Core,
}

#[pymethods]
impl Utf8Decoder {
    #[new]
    fn new() -> Self {
        Self {
            core: Utf8Core::new(),
        }
    }

    /// Decode `chunk`; return the text of every code point completed so far.
    fn decode<'py>(&mut self, py: Python<'py>, chunk: &[u8]) -> PyResult<Bound<'py, PyString>> {
        let decoded = self.core.decode(chunk).map_err(|e| stream_error(&e))?;
        let head = decoded.head();
        if head.is_empty() {
            return Ok(PyString::new(py, decoded.body));
        }
        let mut text = String::with_capacity(head.len() + decoded.body.len());
        text.push_str(head);
        text.push_str(decoded.body);
        Ok(PyString::new(py, &text))
    }

    /// End of stream: return `""`, or raise if an incomplete sequence is left over.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        self.core.finish().map_err(|e| stream_error(&e))?;
        Ok(PyString::new(py, ""))
    }
}
