//! The one place a core error becomes a Python exception, of the classes in `mcpstream.errors`.

use pyo3::prelude::*;

use crate::errors::{ProtocolError, StreamError};

pyo3::import_exception!(mcpstream.errors, InvalidUtf8Error);
pyo3::import_exception!(mcpstream.errors, SseEventTooLargeError);
pyo3::import_exception!(mcpstream.errors, JsonRpcProtocolError);

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
