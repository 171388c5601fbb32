//! The one place a core error becomes a Python exception, of the classes in `mcpstream.errors`.

use pyo3::prelude::*;

use crate::errors::{ProtocolError, StreamError};
use crate::http1::Http1Error;

pyo3::import_exception!(mcpstream.errors, InvalidUtf8Error);
pyo3::import_exception!(mcpstream.errors, SseEventTooLargeError);
pyo3::import_exception!(mcpstream.errors, JsonRpcProtocolError);
pyo3::import_exception!(mcpstream.errors, CodecError);

/// `InvalidUtf8Error(message, offset)` or `SseEventTooLargeError(message, limit)`.
pub fn stream_error(error: &StreamError) -> PyErr {
    let message = error.to_string();
    match error {
        StreamError::InvalidUtf8 { offset } | StreamError::IncompleteUtf8 { offset } => {
            InvalidUtf8Error::new_err((message, *offset))
        }
        StreamError::EventTooLarge { limit } => SseEventTooLargeError::new_err((message, *limit)),
    }
}

/// `JsonRpcProtocolError(message)`.
pub fn protocol_error(error: &ProtocolError) -> PyErr {
    JsonRpcProtocolError::new_err(error.to_string())
}

/// `CodecError(message)`: bytes of an HTTP/1.1 response this client does not read.
pub fn http1_error(error: &Http1Error) -> PyErr {
    CodecError::new_err(error.to_string())
}
