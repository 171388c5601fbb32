//! The JSON scanner walked over a whole document (iteratively, as a validator) must never panic,
//! must stop at `MAX_DEPTH`, and must accept exactly what `serde_json` accepts where the two are
//! meant to agree: UTF-8 input without `\u` escapes (the scanner, like Python's `json`, takes
//! lone surrogates), exponents or runs of 300 digits (serde_json refuses numbers out of the f64
//! range, Python makes them `inf`), nested less than `MAX_DEPTH` deep.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpstream::json_scan::{Scanner, SyntaxError, MAX_DEPTH};

/// Walks the value at the scanner's position; the number of levels it reached.
fn walk(scan: &mut Scanner<'_, '_>) -> Result<usize, SyntaxError> {
    // Each open container: true for an object. Its length is the depth.
    let mut open: Vec<bool> = Vec::new();
    let mut deepest = 0;
    let mut first = scan.peek()?;
    loop {
        // a value starting with `first`; `None` when it opened a container
        let closed_scalar = match first {
            b'[' | b'{' => {
                scan.check_depth(open.len() + 1)?;
                let object = first == b'{';
                let more = if object {
                    scan.first_key()?.then_some(0)
                } else {
                    scan.first_item()?
                };
                match more {
                    Some(next) => {
                        open.push(object);
                        deepest = deepest.max(open.len());
                        first = if object { scan.peek()? } else { next };
                        continue;
                    }
                    None => true,
                }
            }
            b'"' => scan.string().map(|()| true)?,
            b't' => scan.literal(b"true").map(|()| true)?,
            b'f' => scan.literal(b"false").map(|()| true)?,
            b'n' => scan.literal(b"null").map(|()| true)?,
            _ => scan.scan_number().map(|_| true)?,
        };
        debug_assert!(closed_scalar);
        // a value is complete: move on in the containers around it
        loop {
            let Some(&object) = open.last() else {
                return Ok(deepest);
            };
            if object {
                if scan.next_key()? {
                    first = scan.peek()?;
                    break;
                }
            } else if let Some(next) = scan.next_item()? {
                first = next;
                break;
            }
            open.pop();
        }
    }
}

fn long_digit_run(data: &[u8]) -> bool {
    data.split(|b| !b.is_ascii_digit())
        .any(|run| run.len() >= 300)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return; // callers check UTF-8 first
    };
    let mut scratch = Vec::new();
    let mut scan = Scanner::new(data, &mut scratch);
    let ours = walk(&mut scan).and_then(|depth| scan.end().map(|()| depth));
    if let Ok(depth) = ours {
        assert!(depth <= MAX_DEPTH);
    }
    let comparable = !text.contains("\\u")
        && !data.iter().any(|b| matches!(b, b'e' | b'E'))
        && !long_digit_run(data)
        && !matches!(&ours, Err(e) if e.to_string().starts_with("nesting"));
    if comparable {
        let theirs = serde_json::from_slice::<serde_json::Value>(data);
        assert_eq!(
            ours.is_ok(),
            theirs.is_ok(),
            "ours {ours:?}, serde_json {theirs:?}"
        );
    }
});
