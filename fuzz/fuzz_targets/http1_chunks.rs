//! The HTTP/1.1 response framing fed the same bytes whole and cut into chunks must give the
//! same head, body, completion, keep-alive decision, trailing bytes and error (the contract:
//! the outcome does not depend on the chunking), never panic, and never hand out more body than
//! a Content-Length allows; nor when the body data sure to come is taken past `feed`
//! (`body_ahead`, `skip_body`), as a transport reading into a body's buffer takes it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpstream::http1::{Framing, Head, Http1Error, ResponseCore};

#[path = "../common/chunks.rs"]
mod chunks;

type Outcome = (
    Option<Head>,
    Vec<u8>,
    bool,
    bool,
    Vec<u8>,
    Option<Http1Error>,
);

fn read(config: u8, chunks: &[&[u8]], eof: bool, skip: Option<usize>) -> Outcome {
    let head_request = config & 1 != 0;
    let max_head_bytes = [16, 64, 1024, 65536][usize::from(config >> 1 & 3)];
    let max_headers = [1, 4, 100, 100][usize::from(config >> 3 & 3)];
    let mut core = ResponseCore::new(head_request, max_head_bytes, max_headers);
    let mut body = Vec::new();
    let mut error = None;
    for chunk in chunks {
        let mut chunk: &[u8] = chunk;
        while let Some(most) = skip {
            let ahead = usize::try_from(core.body_ahead()).unwrap_or(usize::MAX);
            let taken = ahead.min(most).min(chunk.len());
            if taken == 0 {
                break;
            }
            assert!(core.skip_body(taken as u64));
            body.extend_from_slice(&chunk[..taken]);
            chunk = &chunk[taken..];
        }
        if let Err(e) = core.feed(chunk, &mut |data| body.extend_from_slice(data)) {
            error = Some(e);
            break;
        }
        if let Some(Framing::Length(length)) = core.framing() {
            assert!(body.len() as u64 <= length);
        }
    }
    if error.is_none() && eof {
        error = core.feed_eof().err();
    }
    if core.is_complete() {
        if let Some(Framing::Length(length)) = core.framing() {
            assert_eq!(body.len() as u64, length);
        }
    }
    (
        core.head().cloned(),
        body,
        core.is_complete(),
        core.keep_alive(),
        core.trailing().to_vec(),
        error,
    )
}

fuzz_target!(|input: &[u8]| {
    let (config, chunks, data) = chunks::split(input);
    let eof = config & 0x80 != 0;
    let whole = read(config, &[data], eof, None);
    assert_eq!(read(config, &chunks, eof, None), whole, "chunks {chunks:?}");
    let most = usize::from(config >> 5 & 3) * 7 + 1;
    assert_eq!(
        read(config, &chunks, eof, Some(most)),
        whole,
        "skip {most}, chunks {chunks:?}"
    );
});
