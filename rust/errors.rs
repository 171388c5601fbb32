//! The core errors of the codec, free of Python: each names its rule and, where it has one, its
//! byte offset in the stream. `pyerrors` is the one place they become Python exceptions.

use std::fmt;

/// An error of the streaming decoders (UTF-8 and SSE).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamError {
    /// A byte that cannot start or continue a code point, at `offset` in the stream.
    InvalidUtf8 { offset: u64 },
    /// The stream ended inside a code point that starts at `offset`.
    IncompleteUtf8 { offset: u64 },
    /// One SSE event grew past the decoder's `max_event_bytes`.
    EventTooLarge { limit: usize },
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidUtf8 { offset } => write!(f, "invalid UTF-8 at byte offset {offset}"),
            Self::IncompleteUtf8 { offset } => write!(
                f,
                "incomplete UTF-8 sequence at end of stream (byte offset {offset})"
            ),
            Self::EventTooLarge { limit } => write!(
                f,
                "SSE event exceeds the limit of {limit} bytes (max_event_bytes)"
            ),
        }
    }
}

impl std::error::Error for StreamError {}

/// The kind of a JSON value, as named in "must be an object, got {kind}".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonKind {
    Object,
    Array,
    String,
    Number,
    Boolean,
    Null,
}

impl JsonKind {
    /// The JSON name of the kind.
    pub fn name(self) -> &'static str {
        match self {
            Self::Object => "object",
            Self::Array => "array",
            Self::String => "string",
            Self::Number => "number",
            Self::Boolean => "boolean",
            Self::Null => "null",
        }
    }
}

/// A JSON-RPC 2.0 rule a message broke; the display is the contract's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleError {
    NotAnObject(JsonKind),
    BadVersion,
    MethodNotString,
    BadId,
    BadParams,
    MethodWithResult,
    ResultXorError,
    ResponseWithoutId,
    BadErrorObject,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::NotAnObject(kind) => {
                return write!(f, "JSON-RPC message must be an object, got {}", kind.name())
            }
            Self::BadVersion => r#"JSON-RPC message must have "jsonrpc": "2.0""#,
            Self::MethodNotString => r#""method" must be a string"#,
            Self::BadId => r#""id" must be a string or an integer"#,
            Self::BadParams => r#""params" must be an object or an array"#,
            Self::MethodWithResult => {
                r#"JSON-RPC message must not have both "method" and "result" or "error""#
            }
            Self::ResultXorError => {
                r#"JSON-RPC response must have exactly one of "result" and "error""#
            }
            Self::ResponseWithoutId => r#"JSON-RPC response must have an "id""#,
            Self::BadErrorObject => {
                r#""error" must be an object with an integer "code" and a string "message""#
            }
        })
    }
}

/// Why a JSON text is not a JSON-RPC message or batch (`JsonRpcProtocolError`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProtocolError {
    /// Not JSON at all; the text names the problem and its position.
    InvalidJson(String),
    /// `[]`.
    EmptyBatch,
    /// A single message broke a rule.
    Message(RuleError),
    /// Item `index` of a batch broke a rule.
    BatchItem { index: usize, rule: RuleError },
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidJson(detail) => write!(f, "invalid JSON: {detail}"),
            Self::EmptyBatch => f.write_str("empty JSON-RPC batch"),
            Self::Message(rule) => rule.fmt(f),
            Self::BatchItem { index, rule } => write!(f, "batch item {index}: {rule}"),
        }
    }
}

impl std::error::Error for ProtocolError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_messages() {
        assert_eq!(
            StreamError::InvalidUtf8 { offset: 7 }.to_string(),
            "invalid UTF-8 at byte offset 7"
        );
        assert_eq!(
            StreamError::IncompleteUtf8 { offset: 3 }.to_string(),
            "incomplete UTF-8 sequence at end of stream (byte offset 3)"
        );
        assert_eq!(
            StreamError::EventTooLarge { limit: 10 }.to_string(),
            "SSE event exceeds the limit of 10 bytes (max_event_bytes)"
        );
    }

    #[test]
    fn protocol_messages() {
        assert_eq!(
            ProtocolError::BatchItem {
                index: 2,
                rule: RuleError::NotAnObject(JsonKind::Array)
            }
            .to_string(),
            "batch item 2: JSON-RPC message must be an object, got array"
        );
        assert_eq!(
            ProtocolError::Message(RuleError::BadVersion).to_string(),
            r#"JSON-RPC message must have "jsonrpc": "2.0""#
        );
        assert_eq!(
            ProtocolError::EmptyBatch.to_string(),
            "empty JSON-RPC batch"
        );
        assert_eq!(
            ProtocolError::InvalidJson("x at line 1 column 2".into()).to_string(),
            "invalid JSON: x at line 1 column 2"
        );
    }
}
