use super::*;
use StreamError::{EventTooLarge, IncompleteUtf8, InvalidUtf8};

fn ev(event: Option<&str>, data: &str, id: Option<&str>, retry: Option<u64>) -> OwnedEvent {
    OwnedEvent {
        event: event.map(str::to_owned),
        data: data.to_owned(),
        id: id.map(str::to_owned),
        retry,
    }
}

fn data(d: &str) -> OwnedEvent {
    ev(None, d, None, None)
}

/// Feeds the chunks then finishes; the events, and the error if one came.
fn run(limit: Option<usize>, chunks: &[&[u8]]) -> (Vec<OwnedEvent>, Option<StreamError>) {
    let mut core = SseCore::new(limit);
    let mut out = Vec::new();
    for chunk in chunks {
        if let Err(e) = core.feed(chunk, &mut out) {
            return (out, Some(e));
        }
    }
    match core.finish(&mut out) {
        Ok(()) => (out, None),
        Err(e) => (out, Some(e)),
    }
}

/// The result for `stream` in one chunk, checked to be the same for every cut into 1, 2 and 3
/// chunks and for byte-by-byte feeding.
fn run_all_cuts(limit: Option<usize>, stream: &[u8]) -> (Vec<OwnedEvent>, Option<StreamError>) {
    let whole = run(limit, &[stream]);
    for i in 0..=stream.len() {
        assert_eq!(
            run(limit, &[&stream[..i], &stream[i..]]),
            whole,
            "cut at {i}"
        );
        for j in i..=stream.len() {
            let got = run(limit, &[&stream[..i], &stream[i..j], &stream[j..]]);
            assert_eq!(got, whole, "cuts at {i},{j}");
        }
    }
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(run(limit, &bytes), whole, "byte by byte");
    whole
}

/// Checks that `stream` ends with `error`, whatever the cuts (see [`run_all_cuts`]).
#[track_caller]
fn assert_fails(limit: Option<usize>, stream: &[u8], error: StreamError) {
    assert_eq!(run_all_cuts(limit, stream).1, Some(error));
}

#[test]
fn terminators_lf_cr_crlf() {
    let (events, err) = run_all_cuts(None, b"data: a\r\rdata: b\n\ndata: c\r\n\r\ndata: d\r\n\n");
    assert_eq!(err, None);
    assert_eq!(events, vec![data("a"), data("b"), data("c"), data("d")]);
}

#[test]
fn cr_at_chunk_end_dispatches_at_once() {
    let mut core = SseCore::new(None);
    let mut out = Vec::new();
    core.feed(b"data: x\r\r", &mut out).unwrap();
    assert_eq!(out, vec![data("x")]);
    assert!(!core.event_in_progress());
    // the LF that follows belongs to the CR: no extra blank line, no extra event
    core.feed(b"\ndata: y\n", &mut out).unwrap();
    assert_eq!(out.len(), 1);
    core.finish(&mut out).unwrap();
    assert_eq!(out, vec![data("x"), data("y")]);
}

#[test]
fn fields() {
    let stream = b": comment\nevent: update\nid: 7\nretry: 1500\ndata: one\ndata\ndata:two\n\
        data:  three\nfoo: bar\n\n";
    let (events, err) = run_all_cuts(None, stream);
    assert_eq!(err, None);
    assert_eq!(
        events,
        vec![ev(
            Some("update"),
            "one\n\ntwo\n three",
            Some("7"),
            Some(1500)
        )]
    );
}

#[test]
fn dispatch_rule_and_ids() {
    let stream = b"foo: 1\n\n: c\n\nevent:\n\nid\n\nretry: 5\n\nid: a\0b\n\nretry: x\n\ndata: z";
    let mut core = SseCore::new(None);
    let mut out = Vec::new();
    core.feed(stream, &mut out).unwrap();
    core.finish(&mut out).unwrap();
    assert_eq!(
        out,
        vec![
            ev(Some(""), "", None, None),
            ev(None, "", Some(""), None),
            ev(None, "", None, Some(5)),
            data("z"),
        ]
    );
    assert_eq!(core.last_event_id(), Some(""));
    assert_eq!(core.retry_ms(), Some(5));
}

#[test]
fn last_event_id_and_retry_persist_across_finish() {
    let mut core = SseCore::new(None);
    let mut out = Vec::new();
    core.feed(b"id: 1\ndata: a\n\ndata: b\n\nretry: 9\n", &mut out)
        .unwrap();
    assert_eq!(core.last_event_id(), Some("1"));
    assert_eq!(core.retry_ms(), Some(9));
    assert_eq!(out[1], data("b"));
    core.finish(&mut out).unwrap();
    assert_eq!(out[2], ev(None, "", None, Some(9)));
    // a new stream: BOM handling again, ids kept
    core.feed(b"\xEF\xBB\xBFdata: c\n\n", &mut out).unwrap();
    assert_eq!(out[3], data("c"));
    assert_eq!(core.last_event_id(), Some("1"));
    assert_eq!(core.retry_ms(), Some(9));
}

#[test]
fn bom_dropped_once() {
    let (events, err) = run_all_cuts(None, b"\xEF\xBB\xBFdata: a\n\n");
    assert_eq!((events, err), (vec![data("a")], None));
    let (events, err) = run_all_cuts(None, "\u{FEFF}\u{FEFF}data: a\n\n".as_bytes());
    assert_eq!(err, None);
    assert!(
        events.is_empty(),
        "the second BOM is part of the field name"
    );
}

#[test]
fn partial_bom_is_line_bytes() {
    let (events, err) = run_all_cuts(None, b"\xEF\xBB");
    assert_eq!(events, vec![]);
    assert_eq!(err, Some(StreamError::IncompleteUtf8 { offset: 0 }));
    assert_fails(None, b"\xEF\xBB\n", InvalidUtf8 { offset: 0 });
    assert_fails(None, b"\xEF\n", InvalidUtf8 { offset: 0 });
}

#[test]
fn utf8_errors_have_stream_offsets() {
    // the BOM counts in offsets
    let (events, err) = run_all_cuts(
        None,
        b"\xEF\xBB\xBFdata: \xC3\xA9\n\ndata: ok\xFF\n\ndata: z\n\n",
    );
    assert_eq!(events, vec![data("é")]);
    assert_eq!(err, Some(StreamError::InvalidUtf8 { offset: 21 }));
    // a code point cut by a line end is invalid; cut by the end of the stream, incomplete
    assert_fails(None, b"data: \xE2\x82\r", InvalidUtf8 { offset: 6 });
    assert_fails(None, b"data: \xE2\x82", IncompleteUtf8 { offset: 6 });
    // comments are decoded too
    assert_fails(None, b": \xFF\n", InvalidUtf8 { offset: 2 });
}

#[test]
fn size_cap() {
    let limit = Some(20);
    // 10 + 10 = 20 bytes fits; blank line resets
    let (events, err) = run_all_cuts(limit, b"data: 1234\ndata: 5678\n\ndata: abcd\n\n");
    assert_eq!(err, None);
    assert_eq!(events, vec![data("1234\n5678"), data("abcd")]);
    // 21 bytes does not, even before the line ends
    let (events, err) = run_all_cuts(limit, b"data: 1234\ndata: 56789\n\n");
    assert_eq!(events, vec![]);
    assert_eq!(err, Some(StreamError::EventTooLarge { limit: 20 }));
    // comments count against the cap but do not add up
    let (events, err) = run_all_cuts(limit, b"data: 1234\n: 3456789\n: 3456789\ndata: 5678\n\n");
    assert_eq!((events, err), (vec![data("1234\n5678")], None));
    assert_fails(
        limit,
        b"data: 1234\n: 345678901\n",
        EventTooLarge { limit: 20 },
    );
    // a size error comes before the UTF-8 error of the same line
    assert_fails(Some(5), b"\xFF123456\n", EventTooLarge { limit: 5 });
}

#[test]
fn cap_on_partial_line_bounds_memory() {
    let mut core = SseCore::new(Some(1000));
    let mut out = Vec::new();
    let chunk = [b'a'; 100];
    let mut fed = 0;
    let err = loop {
        match core.feed(&chunk, &mut out) {
            Ok(()) => fed += 1,
            Err(e) => break e,
        }
    };
    assert_eq!(fed, 10);
    assert_eq!(err, StreamError::EventTooLarge { limit: 1000 });
    assert!(core.carry.len() <= 1000);
}

#[test]
fn deferred_error_keeps_events() {
    let mut core = SseCore::new(None);
    let mut out = Vec::new();
    let err = core
        .feed(b"data: a\n\ndata: b\n\n\xFF\n", &mut out)
        .unwrap_err();
    assert_eq!(out, vec![data("a"), data("b")]);
    assert_eq!(err, StreamError::InvalidUtf8 { offset: 18 });
    assert_eq!(core.failed(), Some(&err));
    assert!(!core.event_in_progress());
    out.clear();
    assert_eq!(core.feed(b"data: c\n\n", &mut out), Err(err.clone()));
    assert_eq!(core.finish(&mut out), Err(err));
    assert!(out.is_empty());
}

#[test]
fn event_in_progress() {
    let mut core = SseCore::new(None);
    let mut out = Vec::new();
    assert!(!core.event_in_progress());
    core.feed(b": comment\n", &mut out).unwrap();
    assert!(!core.event_in_progress());
    core.feed(b"da", &mut out).unwrap();
    assert!(core.event_in_progress());
    core.feed(b"ta: x\r", &mut out).unwrap();
    assert!(core.event_in_progress());
    core.feed(b"\n\r", &mut out).unwrap();
    assert!(!core.event_in_progress());
    core.feed(b"foo\n", &mut out).unwrap();
    assert!(core.event_in_progress());
}

#[test]
fn data_spanning_chunks_in_every_shape() {
    let stream = b"data: first line\ndata: second\n\ndata: only\n\ndata: x\n\n";
    let (events, err) = run_all_cuts(None, stream);
    assert_eq!(err, None);
    assert_eq!(
        events,
        vec![data("first line\nsecond"), data("only"), data("x")]
    );
}

#[test]
fn big_event_in_small_chunks() {
    let payload = "é".repeat(300_000);
    let stream = format!("id: big\ndata: {payload}\ndata: end\n\n");
    let mut core = SseCore::new(Some(1_000_000));
    let mut out = Vec::new();
    for chunk in stream.as_bytes().chunks(1000) {
        core.feed(chunk, &mut out).unwrap();
    }
    core.finish(&mut out).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].data, format!("{payload}\nend"));
    assert_eq!(out[0].id.as_deref(), Some("big"));
}

// How the cost grows with the event's size is measured by benches/test_codec_linearity.py (a
// benchmark: a timed assertion here failed on warm caches in release builds); this checks that
// a 16 MiB line fed 1 KiB at a time comes out whole, as one event.
#[test]
fn a_sixteen_mib_line_in_small_chunks_is_one_event() {
    struct Count(usize, usize);
    impl EventSink for Count {
        fn dispatch(&mut self, event: &EventView<'_>) {
            self.0 += 1;
            self.1 += event.data.len();
            assert!(event.data.iter().all(|&b| b == b'x'));
        }
    }
    let chunk = vec![b'x'; 1024];
    let mut core = SseCore::new(None);
    let mut sink = Count(0, 0);
    core.feed(b"data: ", &mut sink).unwrap();
    for _ in 0..16 * 1024 {
        core.feed(&chunk, &mut sink).unwrap();
        assert!(core.event_in_progress());
    }
    assert_eq!(sink.0, 0);
    core.feed(b"\n\n", &mut sink).unwrap();
    assert_eq!((sink.0, sink.1), (1, 16 * 1024 * 1024));
}

#[test]
fn many_data_lines_take_the_fast_path_and_its_exits() {
    // runs of "data: " + LF lines (the fast path), broken by a CR, a CRLF, a line without the
    // space, a comment, another field and a long value, cut at every point
    let long = "v".repeat(70);
    let stream = format!(
        "data: {{\ndata:  a\ndata: b\rdata: c\r\ndata:d\ndata: e\n: note\nid: 7\ndata: \ndata: {long}\ndata: f\n\n"
    );
    let (events, error) = run_all_cuts(None, stream.as_bytes());
    assert_eq!(error, None);
    let want = ev(
        None,
        &format!("{{\n a\nb\nc\nd\ne\n\n{long}\nf"),
        Some("7"),
        None,
    );
    assert_eq!(events, vec![want]);
    // the cap still applies inside a run
    let (events, error) = run(
        Some(20),
        &[b"data: 0123456\ndata: 0123456\ndata: 0123456\n\n"],
    );
    assert!(events.is_empty());
    assert_eq!(error, Some(StreamError::EventTooLarge { limit: 20 }));
}

#[test]
fn data_lines_taken_in_a_run_count_without_their_terminators() {
    // "data" carried over a cut, then a run of `data: ` lines: the event is exactly at the cap
    // (4 + 11 + 14 bytes, terminators left out), however the stream is cut (found by fuzzing:
    // the run counted each line's LF).
    let stream = b"data\ndata: blt\":\ndata: blt\":{}}\n\n";
    let expected = (vec![data("\nblt\":\nblt\":{}}")], None);
    assert_eq!(run_all_cuts(Some(29), stream), expected);
    assert_eq!(
        run(
            Some(29),
            &[b"d", b"ata\ndata: blt\":\nda", b"ta: blt\":{}}\n\n"]
        ),
        expected
    );
    assert_fails(Some(28), stream, EventTooLarge { limit: 28 });
}

#[test]
fn long_line_buffer_stays_within_the_cap() {
    // lines past ONE_GROWTH_FROM get their buffer in one step: sized by the room the cap
    // leaves (never above it), the cap itself counted exactly as for short lines
    let value = "x".repeat(3 * ONE_GROWTH_FROM);
    let head = "id: 7\n";
    let line = format!("data: {value}");
    let limit = head.len() - 1 + line.len();
    let stream = format!("{head}{line}\n\n");
    for piece in [1000, 256 * 1024, ONE_GROWTH_FROM + 1, stream.len()] {
        for (cap, ok) in [(Some(limit), true), (Some(limit - 1), false), (None, true)] {
            let mut core = SseCore::new(cap);
            let mut out = Vec::new();
            let mut result = Ok(());
            for chunk in stream.as_bytes().chunks(piece) {
                result = core.feed(chunk, &mut out);
                if let Some(cap) = cap {
                    assert!(core.carry.capacity() <= cap, "{piece} {cap}");
                }
                if result.is_err() {
                    break;
                }
            }
            if ok {
                result.unwrap();
                core.finish(&mut out).unwrap();
                assert_eq!(out.len(), 1);
                assert_eq!(out[0].data, value);
            } else {
                let cap = cap.unwrap();
                assert_eq!(result, Err(EventTooLarge { limit: cap }), "{piece}");
                assert!(out.is_empty());
            }
        }
    }
}

#[test]
fn line_past_the_one_step_size_grows_geometrically() {
    // past ONE_GROWTH_MAX the buffer must not be re-made at the exact size for every chunk
    // (a copy of the whole line per chunk)
    let len = ONE_GROWTH_MAX + 8 * ONE_GROWTH_FROM;
    let mut core = SseCore::new(Some(4 * len));
    let mut out = Vec::new();
    core.feed(b"data: ", &mut out).unwrap();
    let piece = vec![b'x'; 256 * 1024];
    let (mut fed, mut moves, mut capacity) = (0, 0, 0);
    while fed < len {
        core.feed(&piece, &mut out).unwrap();
        fed += piece.len();
        if core.carry.capacity() != capacity {
            capacity = core.carry.capacity();
            moves += 1;
        }
    }
    assert!(moves <= 12, "{moves} buffer moves");
    core.feed(b"\n\n", &mut out).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].data.len(), fed);
}
