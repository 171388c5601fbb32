//! The SSE decoder fed the same stream whole and cut into chunks must give the same events, the
//! same error and the same state (the contract: results do not depend on the chunking), and
//! never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpstream::errors::StreamError;
use mcpstream::sse::{OwnedEvent, SseCore};

#[path = "../common/chunks.rs"]
mod chunks;

type Outcome = (
    Vec<OwnedEvent>,
    Option<StreamError>,
    Option<String>,
    Option<u64>,
);

fn decode(cap: Option<usize>, chunks: &[&[u8]]) -> Outcome {
    let mut core = SseCore::new(cap);
    let mut events = Vec::new();
    let mut error = None;
    for chunk in chunks {
        if let Err(e) = core.feed(chunk, &mut events) {
            error = Some(e);
            break;
        }
    }
    if error.is_none() {
        error = core.finish(&mut events).err();
    }
    let last_id = core.last_event_id().map(str::to_owned);
    (events, error, last_id, core.retry_ms())
}

fuzz_target!(|input: &[u8]| {
    let (config, chunks, data) = chunks::split(input);
    let cap = match config % 4 {
        0 => None,
        1 => Some(1 + usize::from(config >> 2)),
        2 => Some(16 * 1024 * 1024),
        _ => Some(64),
    };
    let whole = decode(cap, &[data]);
    let cut = decode(cap, &chunks);
    assert_eq!(whole, cut, "chunks {chunks:?}");
    for event in &whole.0 {
        assert!(event.retry.is_none_or(|r| r <= i64::MAX as u64));
        assert!(event.id.as_deref().is_none_or(|id| !id.contains('\0')));
    }
});
