//! The incremental UTF-8 decoder against `std::str::from_utf8` of the whole stream: the same
//! text, or the error at the same offset (`valid_up_to`), whatever the chunking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpstream::errors::StreamError;
use mcpstream::utf8::Utf8Core;

#[path = "../common/chunks.rs"]
mod chunks;

fuzz_target!(|input: &[u8]| {
    let (_, chunks, data) = chunks::split(input);
    let mut core = Utf8Core::new();
    let mut text = String::new();
    let mut error = None;
    for chunk in &chunks {
        match core.decode(chunk) {
            Ok(decoded) => {
                text.push_str(decoded.head());
                text.push_str(decoded.body);
            }
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    if error.is_none() {
        error = core.finish().err();
    }
    match std::str::from_utf8(data) {
        Ok(whole) => {
            assert_eq!(error, None);
            assert_eq!(text, whole);
        }
        Err(e) => {
            let offset = e.valid_up_to() as u64;
            let expected = if e.error_len().is_some() {
                StreamError::InvalidUtf8 { offset }
            } else {
                StreamError::IncompleteUtf8 { offset }
            };
            assert_eq!(error, Some(expected), "chunks {chunks:?}");
            assert!(data[..e.valid_up_to()].starts_with(text.as_bytes()));
        }
    }
});
