//! mcpstream's hot path: incremental UTF-8, SSE and JSON-RPC framing, exposed to Python as
//! `mcpstream._native` (contract: `python/mcpstream/_native.pyi`).
//!
//! Core, free of Python: `utf8` (strict incremental decoding), `sse` (lines, fields, events,
//! the size cap), `json_scan` (JSON tokens), `json_text` (JSON string literals), `jsonrpc` (the
//! message rules), `http1` (HTTP/1.1 response framing and request heads), `errors`,
//! `prefault` (large buffers faulted in ahead, on Linux), `simd` (SSE2 byte masks) and `stack`
//! (the stack left to the recursive parser and encoder).
//!
//! The thin PyO3 layer: `pyutf8`, `pysse`, `pyjson` (Python values from JSON), `pyjsonrpc`
//! (messages from JSON), `pymessages` (the message classes), `pyrecord` (the value classes'
//! shared shape), `pyencode`, `pyhttp1` (`Http1Response`, `encode_request_head`), `pybody` (`BodyBuffer`: a body
//! received into one `bytes`), `pystr`
//! (`str` objects from UTF-8), `pystrview` (a `str` parsed where it lies) and `pyerrors`, the
//! one place a core error becomes a Python exception.

pub mod errors;
pub mod http1;
pub mod json_scan;
pub mod json_text;
pub mod jsonrpc;
mod prefault;
mod simd;
pub mod sse;
pub mod stack;
pub mod utf8;

mod pybody;
mod pyencode;
mod pyerrors;
mod pyhttp1;
mod pyjson;
mod pyjsonrpc;
mod pymessages;
mod pyrecord;
mod pysse;
mod pystr;
mod pystrview;
mod pyutf8;

use pyo3::prelude::*;

/// The native backend of `mcpstream.codec`.
///
/// `gil_used = true`: on a free-threaded CPython (3.14t, 3.15t) importing the module turns the
/// GIL back on, as it must while the encoder walks an exact dict with `PyDict_Next` and borrowed
/// references (`pyencode`), which another thread may mutate without the GIL. The rest is ready
/// for free threading: the value classes are frozen, the decoders' `&mut self` methods go
/// through PyO3's borrow flag (a second thread using the same decoder at once gets an error, not
/// a data race), the reusable buffers are thread-local, and a parsed `str` is immutable. What a
/// free-threaded wheel still needs is in docs/install.md.
#[pymodule(gil_used = true)]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("DEFAULT_MAX_EVENT_BYTES", sse::DEFAULT_MAX_EVENT_BYTES)?;
    // Not part of the contract: tells the tests whether the frames are a debug build's, which
    // `stack` may stop short of `json_scan::MAX_DEPTH` in a small thread stack.
    m.setattr("_debug_build", cfg!(debug_assertions))?; // not in __all__, unlike `add`
    m.add_class::<pyutf8::Utf8Decoder>()?;
    m.add_class::<pysse::SseEvent>()?;
    m.add_class::<pysse::JsonRpcEvent>()?;
    m.add_class::<pysse::SseDecoder>()?;
    m.add_function(wrap_pyfunction!(pysse::sole_sse_message, m)?)?;
    m.add_class::<pymessages::JsonRpcRequest>()?;
    m.add_class::<pymessages::JsonRpcNotification>()?;
    m.add_class::<pymessages::JsonRpcResponse>()?;
    m.add_function(wrap_pyfunction!(pyjsonrpc::parse_jsonrpc_line, m)?)?;
    m.add_function(wrap_pyfunction!(pyencode::encode_jsonrpc_message, m)?)?;
    m.add("DEFAULT_MAX_HEAD_BYTES", http1::DEFAULT_MAX_HEAD_BYTES)?;
    m.add("DEFAULT_MAX_HEADERS", http1::DEFAULT_MAX_HEADERS)?;
    m.add_class::<pyhttp1::Http1Response>()?;
    m.add_function(wrap_pyfunction!(pyhttp1::encode_request_head, m)?)?;
    m.add_class::<pybody::BodyBuffer>()?;
    Ok(())
}
