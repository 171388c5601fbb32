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
    use MessageClass::*;
    use RuleError::*;
    use ValueKind::*;

    /// A shape with a valid `"jsonrpc"` and the members given, the others absent.
    macro_rules! shape {
        ($($member:ident: $value:expr),* $(,)?) => {
            MessageShape { version_ok: true, $($member: $value,)* ..MessageShape::default() }
        };
    }

    /// Each shape classified as expected.
    fn check<const N: usize>(cases: [(MessageShape, Result<MessageClass, RuleError>); N]) {
        for (shape, expected) in cases {
            assert_eq!(classify(&shape), expected, "{shape:?}");
        }
    }

    #[test]
    fn requests_and_notifications() {
        let request = shape!(method: Some(String), id: Some(Integer), params: Some(Object));
        check([
            (request, Ok(Request)),
            (
                shape!(method: Some(String), params: Some(Null)),
                Ok(Notification),
            ),
            (
                MessageShape {
                    id: Some(Null),
                    ..request
                },
                Err(BadId),
            ),
            (
                MessageShape {
                    has_result: true,
                    ..request
                },
                Err(MethodWithResult),
            ),
        ]);
    }

    #[test]
    fn responses() {
        check([
            (
                shape!(id: Some(String), has_result: true),
                Ok(Response { is_error: false }),
            ),
            (
                shape!(id: Some(Null), error_ok: Some(true)),
                Ok(Response { is_error: true }),
            ),
            (shape!(id: Some(Null), has_result: true), Err(BadId)),
            (shape!(has_result: true), Err(ResponseWithoutId)),
            (shape!(id: Some(Integer)), Err(ResultXorError)),
            (
                shape!(id: Some(Integer), error_ok: Some(false)),
                Err(BadErrorObject),
            ),
            // params is checked in responses too
            (
                shape!(id: Some(Integer), params: Some(Integer), has_result: true),
                Err(BadParams),
            ),
        ]);
    }

    #[test]
    fn rule_order() {
        // Every rule broken at once; mending one member at a time shows the rules' order.
        let mut shape = MessageShape {
            version_ok: false,
            method: Some(Integer),
            id: Some(Float),
            params: Some(String),
            has_result: true,
            error_ok: Some(false),
        };
        type Mend = fn(&mut MessageShape);
        let mends: [(Mend, RuleError); 6] = [
            (|_| {}, BadVersion),
            (|s| s.version_ok = true, MethodNotString),
            (|s| s.method = Some(String), BadId),
            (|s| s.id = Some(Bool), BadId),
            (|s| s.id = Some(Integer), BadParams),
            (|s| s.params = Some(Array), MethodWithResult),
        ];
        for (mend, expected) in mends {
            mend(&mut shape);
            assert_eq!(classify(&shape), Err(expected), "{shape:?}");
        }
    }

    #[test]
    fn blank_data() {
        assert!(is_blank(b""));
        assert!(is_blank(b" \t\r\n"));
        assert!(!is_blank(b" {} "));
        assert!(!is_blank("\u{a0}".as_bytes()));
    }
}
