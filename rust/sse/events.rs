//! Event assembly: the fields of complete lines become events (WHATWG rules, with the contract's
//! dispatch rule: an event is dispatched when any of data, event, id or retry was set).

use std::ops::Range;

use super::lines::Terminators;
use crate::prefault::Ahead;

/// One dispatched event, borrowed from the decoder for the length of a [`EventSink::dispatch`]
/// call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventView<'a> {
    /// The last `event` field (UTF-8), `None` if there was none.
    pub event: Option<&'a [u8]>,
    /// The `data` lines joined with `\n`: valid UTF-8, kept as bytes so a consumer can build
    /// its own string or parse it without a second check.
    pub data: &'a [u8],
    /// The last valid `id` field (UTF-8), `None` if there was none.
    pub id: Option<&'a [u8]>,
    /// The last valid `retry` field, `None` if there was none.
    pub retry: Option<u64>,
}

/// Receives the events a decoder dispatches, in stream order.
pub trait EventSink {
    /// Takes one event; the view is only valid during the call.
    fn dispatch(&mut self, event: &EventView<'_>);
}

/// Collects owned copies of events; handy in tests.
impl EventSink for Vec<OwnedEvent> {
    fn dispatch(&mut self, event: &EventView<'_>) {
        self.push(OwnedEvent {
            event: event.event.map(|e| String::from_utf8_lossy(e).into_owned()),
            data: String::from_utf8_lossy(event.data).into_owned(),
            id: event.id.map(|i| String::from_utf8_lossy(i).into_owned()),
            retry: event.retry,
        });
    }
}

/// An owned copy of an [`EventView`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnedEvent {
    pub event: Option<String>,
    pub data: String,
    pub id: Option<String>,
    pub retry: Option<u64>,
}

/// A complete line, valid UTF-8, terminator excluded.
pub(super) enum Line<'b> {
    /// Bytes `range` of the chunk being fed.
    InChunk(Range<usize>),
    /// A line that spanned chunks, gathered in the decoder's carry buffer. The assembler may
    /// swap the buffer for another (cleared) one instead of copying a data value out of it.
    Carried(&'b mut Vec<u8>),
}

/// Buffers above this capacity are dropped once their event or line is done, so one huge
/// event does not pin its memory for the rest of the stream.
pub(super) const RETAIN_BYTES: usize = 256 * 1024;

/// The index of the first `byte` in `bytes`: a plain loop on the short field lines (`id:`,
/// `event:`), where setting up a SIMD search costs more than it saves.
#[inline]
fn find_byte(byte: u8, bytes: &[u8]) -> Option<usize> {
    if bytes.len() <= 16 {
        bytes.iter().position(|&b| b == byte)
    } else {
        memchr::memchr(byte, bytes)
    }
}

/// Where the event's data lives.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Data {
    /// No `data` field yet.
    Unset,
    /// One data line, a slice of the chunk being fed (zero copy); turned into `Owned` when the
    /// chunk ends before the event does.
    InChunk(Range<usize>),
    /// `data_buf[data_off..]`.
    Owned,
}

/// The fields of the event being assembled, and what persists across events.
#[derive(Debug)]
pub(super) struct EventAssembler {
    data: Data,
    data_buf: Vec<u8>,
    data_off: usize,
    /// Pre-faulting of a large data buffer.
    data_ahead: Ahead,
    event_type: Vec<u8>,
    has_event_type: bool,
    id: Vec<u8>,
    has_id: bool,
    retry: Option<u64>,
    /// Bytes of the non-comment lines since the last blank line.
    pub(super) accumulated: usize,
    /// A non-comment line was seen since the last blank line.
    pub(super) seen_line: bool,
    last_event_id: Option<Vec<u8>>,
    retry_ms: Option<u64>,
}

impl Default for EventAssembler {
    fn default() -> Self {
        Self {
            data: Data::Unset,
            data_buf: Vec::new(),
            data_off: 0,
            data_ahead: Ahead::default(),
            event_type: Vec::new(),
            has_event_type: false,
            id: Vec::new(),
            has_id: false,
            retry: None,
            accumulated: 0,
            seen_line: false,
            last_event_id: None,
            retry_ms: None,
        }
    }
}

/// A `retry` value: one or more ASCII digits, at most `2**63 - 1`.
pub(super) fn parse_retry(value: &[u8]) -> Option<u64> {
    if value.is_empty() {
        return None;
    }
    let mut n: u64 = 0;
    for &b in value {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
        if n > i64::MAX as u64 {
            return None;
        }
    }
    Some(n)
}

impl EventAssembler {
    /// The id of the most recent dispatched event that had one.
    pub(super) fn last_event_id(&self) -> Option<&str> {
        // field values are cut from lines checked as UTF-8 at ASCII bytes, so this holds
        self.last_event_id
            .as_deref()
            .and_then(|id| std::str::from_utf8(id).ok())
    }

    /// The last valid `retry` value read.
    pub(super) fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    /// Forgets the event in progress, keeping `last_event_id` and `retry_ms`.
    pub(super) fn reset(&mut self) {
        let last_event_id = self.last_event_id.take();
        let retry_ms = self.retry_ms;
        *self = Self {
            last_event_id,
            retry_ms,
            ..Self::default()
        };
    }

    /// Takes one complete line (already checked against the size cap and for UTF-8).
    #[inline]
    pub(super) fn line(&mut self, chunk: &[u8], line: Line<'_>, sink: &mut impl EventSink) {
        let bytes: &[u8] = match &line {
            Line::InChunk(range) => &chunk[range.clone()],
            Line::Carried(buf) => buf,
        };
        let Some(&first) = bytes.first() else {
            self.dispatch(chunk, sink);
            return;
        };
        if first == b':' {
            return;
        }
        self.accumulated = self.accumulated.saturating_add(bytes.len());
        self.seen_line = true;
        if bytes.starts_with(b"data:") {
            // the common line, without searching for its colon
            let value_start = if bytes.get(5) == Some(&b' ') { 6 } else { 5 };
            self.push_data(chunk, line, value_start);
            return;
        }
        // the usual other fields are told by their start, without searching for the colon
        let colon = if bytes.starts_with(b"id:") {
            Some(2)
        } else if bytes.starts_with(b"event:") {
            Some(5)
        } else {
            find_byte(b':', bytes)
        };
        let (name, value_start) = match colon {
            Some(colon) if bytes.get(colon + 1) == Some(&b' ') => (&bytes[..colon], colon + 2),
            Some(colon) => (&bytes[..colon], colon + 1),
            None => (bytes, bytes.len()),
        };
        let value = &bytes[value_start..];
        match name {
            b"data" => self.push_data(chunk, line, value_start),
            b"event" => {
                self.event_type.clear();
                self.event_type.extend_from_slice(value);
                self.has_event_type = true;
            }
            b"id" if find_byte(0, value).is_none() => {
                self.id.clear();
                self.id.extend_from_slice(value);
                self.has_id = true;
            }
            b"retry" => {
                if let Some(ms) = parse_retry(value) {
                    self.retry = Some(ms);
                    self.retry_ms = Some(ms);
                }
            }
            _ => {}
        }
    }

    #[inline]
    fn push_data(&mut self, chunk: &[u8], line: Line<'_>, value_start: usize) {
        match (&self.data, line) {
            (Data::Unset, Line::InChunk(range)) => {
                self.data = Data::InChunk(range.start + value_start..range.end);
            }
            (Data::Unset, Line::Carried(buf)) => {
                // Take the carried line as the data buffer rather than copying the value out.
                self.data_buf.clear();
                std::mem::swap(buf, &mut self.data_buf);
                self.data_off = value_start;
                self.data = Data::Owned;
            }
            (Data::InChunk(first), line) => {
                let first = first.clone();
                self.data_buf.clear();
                self.data_off = 0;
                self.data_buf.extend_from_slice(&chunk[first]);
                self.append_data_line(chunk, &line, value_start);
                self.data = Data::Owned;
            }
            (Data::Owned, line) => self.append_data_line(chunk, &line, value_start),
        }
    }

    #[inline]
    fn append_data_line(&mut self, chunk: &[u8], line: &Line<'_>, value_start: usize) {
        let value = match line {
            Line::InChunk(range) => &chunk[range.start + value_start..range.end],
            Line::Carried(buf) => &buf[value_start..],
        };
        self.data_buf.push(b'\n');
        self.data_buf.extend_from_slice(value);
        self.data_ahead
            .grown(&self.data_buf, self.data_buf.capacity());
    }

    /// The event's data is already in `data_buf`: the state in which
    /// [`EventAssembler::data_run`] can take lines (asked inline by the caller, before an
    /// out-of-line call that most lines of most events would make for nothing).
    #[inline]
    pub(super) fn data_owned(&self) -> bool {
        self.data == Data::Owned
    }

    /// The fast path for events whose data spans many lines (pretty-printed JSON split over
    /// `data:` lines): takes the complete lines of `chunk[pos..=end]` for as long as each is
    /// `data: ...` ended by LF and the event's data is already in `data_buf`, and returns where
    /// it stopped. Each line costs a few instructions of a block-wise terminator scan and one
    /// copy instead of the general per-line dispatch. The caller has checked the run as UTF-8;
    /// the size cap cannot be hit inside the run (checked here once for the whole run, else
    /// nothing is taken).
    #[inline(never)]
    pub(super) fn data_run(
        &mut self,
        chunk: &[u8],
        pos: usize,
        end: usize,
        limit: Option<usize>,
    ) -> usize {
        /// Values up to this long are copied as one fixed-size block (into slack at the end of
        /// the buffer), not through a `memcpy` call sized at run time.
        const BLOCK: usize = 32;
        let run = &chunk[pos..=end];
        // (an event whose data ended at the previous chunk's end sees its blank line here:
        // nothing to take, and no room to make)
        if self.data != Data::Owned
            || !run.starts_with(b"data: ")
            || limit.is_some_and(|limit| self.accumulated.saturating_add(run.len()) > limit)
        {
            return pos;
        }
        // Every line gives at most its own length minus five bytes ("data: " for "\n"), so the
        // run plus one block of slack holds everything written below. The bytes go into the
        // spare capacity rather than over a zero-filled `resize`: filling the room first cost
        // as much again as the copies.
        let out = &mut self.data_buf;
        let start = out.len();
        out.reserve(run.len() + BLOCK);
        let dst = out.as_mut_ptr();
        let mut w = start;
        let (mut line, mut lines) = (0, 0);
        for t in Terminators::new(run) {
            if run[t] != b'\n' || !run[line..t].starts_with(b"data: ") {
                break;
            }
            let (from, len) = (line + 6, t - line - 6);
            let value = &run[from..t];
            let block = run.get(from..from + BLOCK).filter(|_| len <= BLOCK);
            // SAFETY: writes stay inside the capacity reserved above. Before this line, `w -
            // start` is the length of the lines taken so far less five bytes each, so at most
            // `line`; this line writes 1 + len <= run.len() - line bytes (its LF and value),
            // or 1 + BLOCK bytes with line < run.len(): both end by start + run.len() + BLOCK.
            // The sources are `value` and `block`, slices of `run` (the caller's chunk, not
            // the buffer written to).
            unsafe {
                *dst.add(w) = b'\n';
                match block {
                    Some(block) => {
                        std::ptr::copy_nonoverlapping(block.as_ptr(), dst.add(w + 1), BLOCK)
                    }
                    None => std::ptr::copy_nonoverlapping(value.as_ptr(), dst.add(w + 1), len),
                }
            }
            w += 1 + len;
            line = t + 1;
            lines += 1;
        }
        // SAFETY: `start..w` was written above (every line's LF and value, in order), within
        // the capacity; bytes a block wrote past `w` are slack, outside the length.
        unsafe { out.set_len(w) };
        if line > 0 {
            // the event's size leaves the terminators out (one LF a line)
            self.accumulated += line - lines;
            self.seen_line = true;
            self.data_ahead
                .grown(&self.data_buf, self.data_buf.capacity());
        }
        pos + line
    }

    /// The chunk is about to go away: copy data still borrowed from it.
    pub(super) fn end_chunk(&mut self, chunk: &[u8]) {
        if let Data::InChunk(range) = &self.data {
            self.data_buf.clear();
            self.data_off = 0;
            self.data_buf
                .extend_from_slice(chunk.get(range.clone()).unwrap_or_default());
            self.data = Data::Owned;
        }
    }

    /// A blank line (or the end of the stream): dispatch the event if any field was set, then
    /// start a new one.
    pub(super) fn dispatch(&mut self, chunk: &[u8], sink: &mut impl EventSink) {
        let has_data = self.data != Data::Unset;
        if has_data || self.has_event_type || self.has_id || self.retry.is_some() {
            let data: &[u8] = match &self.data {
                Data::Unset => b"",
                Data::InChunk(range) => &chunk[range.clone()],
                Data::Owned => &self.data_buf[self.data_off..],
            };
            sink.dispatch(&EventView {
                event: self.has_event_type.then_some(self.event_type.as_slice()),
                data,
                id: self.has_id.then_some(self.id.as_slice()),
                retry: self.retry,
            });
            if self.has_id {
                self.last_event_id
                    .get_or_insert_with(Vec::new)
                    .clone_from(&self.id);
            }
        }
        self.data = Data::Unset;
        self.data_off = 0;
        if self.data_buf.capacity() > RETAIN_BYTES {
            self.data_buf = Vec::new();
        } else {
            self.data_buf.clear();
        }
        self.has_event_type = false;
        self.has_id = false;
        self.retry = None;
        self.accumulated = 0;
        self.seen_line = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_values() {
        assert_eq!(parse_retry(b"0"), Some(0));
        assert_eq!(parse_retry(b"00042"), Some(42));
        assert_eq!(parse_retry(b"9223372036854775807"), Some(i64::MAX as u64));
        assert_eq!(parse_retry(b"9223372036854775808"), None);
        assert_eq!(parse_retry(b"99999999999999999999999"), None);
        assert_eq!(parse_retry(b""), None);
        assert_eq!(parse_retry(b"1 "), None);
        assert_eq!(parse_retry(b"+1"), None);
        assert_eq!(parse_retry("１".as_bytes()), None);
    }
}
