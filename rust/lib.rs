//! mcpstream's hot path: incremental UTF-8, SSE and JSON-RPC framing, exposed to Python as
//! `mcpstream._native`.

pub mod errors;
pub mod sse;
pub mod utf8;
