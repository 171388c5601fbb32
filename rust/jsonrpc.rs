//! JSON-RPC 2.0 message rules, free of Python: the layer that parsed a message describes it as
//! a [`MessageShape`] and [`classify`] applies the contract's checks in the contract's order.

use crate::errors::{JsonKind, RuleError};

/// The JSON type of a member's value, telling integers from other numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    Object,
    Array,
    String,
    Integer,
    Float,
    Bool,
    Null,
}

impl ValueKind {
    /// The kind's name in "must be an object, got {kind}".
    pub fn json_kind(self) -> JsonKind {
        match self {
            Self::Object => JsonKind::Object,
            Self::Array => JsonKind::Array,
            Self::String => JsonKind::String,
            Self::Integer | Self::Float => JsonKind::Number,
            Self::Bool => JsonKind::Boolean,
            Self::Null => JsonKind::Null,
        }
    }
}

/// What the rules need to know about one message object: each member's kind, `None` when the
/// member is absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MessageShape {
    /// `"jsonrpc"` is the string `"2.0"`.
    pub version_ok: bool,
    pub method: Option<ValueKind>,
    pub id: Option<ValueKind>,
    pub params: Option<ValueKind>,
    pub has_result: bool,
    /// `None` when absent; else whether it is an object with an integer (not boolean) `"code"`
    /// and a string `"message"`.
    pub error_ok: Option<bool>,
}

/// What a valid message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageClass {
    Request,
    Notification,
    /// `is_error`: it carries `"error"` rather than `"result"`.
    Response {
        is_error: bool,
    },
}

/// Applies the rules in order: jsonrpc, method, id, params, then the response rules.
pub fn classify(shape: &MessageShape) -> Result<MessageClass, RuleError> {
    if !shape.version_ok {
        return Err(RuleError::BadVersion);
    }
    if matches!(shape.method, Some(kind) if kind != ValueKind::String) {
        return Err(RuleError::MethodNotString);
    }
    let has_method = shape.method.is_some();
    let has_error = shape.error_ok.is_some();
    match shape.id {
        None | Some(ValueKind::String | ValueKind::Integer) => {}
        Some(ValueKind::Null) if !has_method && has_error => {}
        Some(_) => return Err(RuleError::BadId),
    }
    match shape.params {
        None | Some(ValueKind::Null | ValueKind::Object | ValueKind::Array) => {}
        Some(_) => return Err(RuleError::BadParams),
    }
    if has_method {
        if shape.has_result || has_error {
            return Err(RuleError::MethodWithResult);
        }
        return Ok(if shape.id.is_some() {
            MessageClass::Request
        } else {
            MessageClass::Notification
        });
    }
    if shape.has_result == has_error {
        return Err(RuleError::ResultXorError);
    }
    if shape.id.is_none() {
        return Err(RuleError::ResponseWithoutId);
    }
    if shape.error_ok == Some(false) {
        return Err(RuleError::BadErrorObject);
    }
    Ok(MessageClass::Response {
        is_error: has_error,
    })
}

/// Data that is empty or only JSON whitespace: such SSE events carry no message.
pub fn is_blank(data: &[u8]) -> bool {
    data.iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ValueKind::*;

    fn base() -> MessageShape {
        MessageShape {
            version_ok: true,
            ..MessageShape::default()
        }
    }

    #[test]
    fn requests_and_notifications() {
        let request = MessageShape {
            method: Some(String),
            id: Some(Integer),
            params: Some(Object),
            ..base()
        };
        assert_eq!(classify(&request), Ok(MessageClass::Request));
        let note = MessageShape {
            method: Some(String),
            params: Some(Null),
            ..base()
        };
        assert_eq!(classify(&note), Ok(MessageClass::Notification));
        let bad_id = MessageShape {
            id: Some(Null),
            ..request
        };
        assert_eq!(classify(&bad_id), Err(RuleError::BadId));
        let both = MessageShape {
            has_result: true,
            ..request
        };
        assert_eq!(classify(&both), Err(RuleError::MethodWithResult));
    }

    #[test]
    fn responses() {
        let ok = MessageShape {
            id: Some(String),
            has_result: true,
            ..base()
        };
        assert_eq!(
            classify(&ok),
            Ok(MessageClass::Response { is_error: false })
        );
        let err = MessageShape {
            id: Some(Null),
            error_ok: Some(true),
            ..base()
        };
        assert_eq!(
            classify(&err),
            Ok(MessageClass::Response { is_error: true })
        );
        let null_id_result = MessageShape {
            id: Some(Null),
            has_result: true,
            ..base()
        };
        assert_eq!(classify(&null_id_result), Err(RuleError::BadId));
        let no_id = MessageShape {
            has_result: true,
            ..base()
        };
        assert_eq!(classify(&no_id), Err(RuleError::ResponseWithoutId));
        let neither = MessageShape {
            id: Some(Integer),
            ..base()
        };
        assert_eq!(classify(&neither), Err(RuleError::ResultXorError));
        let bad_error = MessageShape {
            id: Some(Integer),
            error_ok: Some(false),
            ..base()
        };
        assert_eq!(classify(&bad_error), Err(RuleError::BadErrorObject));
    }

    #[test]
    fn rule_order() {
        let everything_wrong = MessageShape {
            version_ok: false,
            method: Some(Integer),
            id: Some(Float),
            params: Some(String),
            has_result: true,
            error_ok: Some(false),
        };
        assert_eq!(classify(&everything_wrong), Err(RuleError::BadVersion));
        let s = MessageShape {
            version_ok: true,
            ..everything_wrong
        };
        assert_eq!(classify(&s), Err(RuleError::MethodNotString));
        let s = MessageShape {
            method: Some(String),
            ..s
        };
        assert_eq!(classify(&s), Err(RuleError::BadId));
        let s = MessageShape {
            id: Some(Bool),
            ..s
        };
        assert_eq!(classify(&s), Err(RuleError::BadId));
        let s = MessageShape {
            id: Some(Integer),
            ..s
        };
        assert_eq!(classify(&s), Err(RuleError::BadParams));
        let s = MessageShape {
            params: Some(Array),
            ..s
        };
        assert_eq!(classify(&s), Err(RuleError::MethodWithResult));
        // params is checked in responses too
        let response = MessageShape {
            id: Some(Integer),
            params: Some(Integer),
            has_result: true,
            ..base()
        };
        assert_eq!(classify(&response), Err(RuleError::BadParams));
    }

    #[test]
    fn blank_data() {
        assert!(is_blank(b""));
        assert!(is_blank(b" \t\r\n"));
        assert!(!is_blank(b" {} "));
        assert!(!is_blank("\u{a0}".as_bytes()));
    }
}
