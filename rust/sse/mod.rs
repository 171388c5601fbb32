//! Incremental Server-Sent Events decoding, free of Python.
//!
//! [`SseCore::feed`] takes body chunks and hands each dispatched event to an [`EventSink`].
//! Every byte is looked at a bounded number of times: complete lines are slices of the chunk,
//! only an unterminated tail is carried to the next chunk, and a line that spans many chunks
//! grows one buffer that can become the event's data without a copy.

mod events;
mod lines;

pub use events::{EventSink, EventView, OwnedEvent};

use crate::errors::StreamError;
use crate::prefault::Ahead;
use crate::utf8::{check, complete_len, Check};
use events::{EventAssembler, Line, RETAIN_BYTES};
use lines::{find_terminator, rfind_terminator, Bom, BomStep};

/// 64 MiB: the default cap on the size of one SSE event (the transports' documented default).
pub const DEFAULT_MAX_EVENT_BYTES: usize = 64 * 1024 * 1024;

/// A carried line growing past this many bytes gets its final buffer in one step (see
/// `SseCore::carry_extend`); shorter ones grow as a `Vec` does.
const ONE_GROWTH_FROM: usize = 1 << 20;

/// ... and at most this large one (a longer line grows on from there as a `Vec` does): glibc
/// serves requests under 32 MiB from its heap once it has freed one that large, so the next
/// event's buffer is recycled with its pages resident instead of mapped and faulted in anew.
const ONE_GROWTH_MAX: usize = (32 << 20) - (64 << 10);

/// The SSE decoder state machine (see `SseDecoder` in `_native.pyi` for the rules).
#[derive(Debug)]
pub struct SseCore {
    limit: Option<usize>,
    bom: Bom,
    /// The unterminated line so far (it started in an earlier chunk).
    carry: Vec<u8>,
    /// Stream offset of `carry[0]`.
    carry_start: u64,
    /// `carry[..carry_checked]` is known to be UTF-8 (checked while its chunk was in cache).
    carry_checked: usize,
    /// Stream offset of a byte of `carry` that is not UTF-8, reported when the line ends.
    carry_bad: Option<u64>,
    /// Pre-faulting of a large carry buffer.
    carry_ahead: Ahead,
    /// The previous chunk ended with CR: an LF starting the next one belongs to it.
    skip_lf: bool,
    /// Stream offset of the next byte to arrive.
    offset: u64,
    events: EventAssembler,
    failed: Option<StreamError>,
}

impl SseCore {
    /// A decoder capping events at `max_event_bytes` (`None`: no cap).
    pub fn new(max_event_bytes: Option<usize>) -> Self {
        Self {
            limit: max_event_bytes,
            bom: Bom::Matching(0),
            carry: Vec::new(),
            carry_start: 0,
            carry_checked: 0,
            carry_bad: None,
            carry_ahead: Ahead::default(),
            skip_lf: false,
            offset: 0,
            events: EventAssembler::default(),
            failed: None,
        }
    }

    /// The id of the most recent dispatched event that set one.
    pub fn last_event_id(&self) -> Option<&str> {
        self.events.last_event_id()
    }

    /// The last valid `retry` value read.
    pub fn retry_ms(&self) -> Option<u64> {
        self.events.retry_ms()
    }

    /// A line is partly received, or a non-comment line was seen since the last blank line;
    /// never once failed (no event can complete any more).
    pub fn event_in_progress(&self) -> bool {
        self.failed.is_none()
            && (!self.carry.is_empty() || !self.bom.held().is_empty() || self.events.seen_line)
    }

    /// The error the decoder failed with, if it did.
    pub fn failed(&self) -> Option<&StreamError> {
        self.failed.as_ref()
    }

    /// Takes the next chunk. Events it completes go to `sink`, in order, even when the chunk
    /// then hits an error; after an error every call returns that error again.
    pub fn feed(&mut self, chunk: &[u8], sink: &mut impl EventSink) -> Result<(), StreamError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        let result = self.feed_chunk(chunk, sink);
        self.events.end_chunk(chunk);
        self.offset = self.offset.saturating_add(chunk.len() as u64);
        if let Err(error) = &result {
            self.failed = Some(error.clone());
        }
        result
    }

    /// Ends the stream: the partial line is taken as a line, and a pending event dispatched.
    /// On success the decoder starts a new stream, keeping `last_event_id` and `retry_ms`.
    pub fn finish(&mut self, sink: &mut impl EventSink) -> Result<(), StreamError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        match self.finish_stream(sink) {
            Ok(()) => {
                let limit = self.limit;
                let mut events = std::mem::take(&mut self.events);
                events.reset();
                *self = Self {
                    events,
                    ..Self::new(limit)
                };
                Ok(())
            }
            Err(error) => {
                self.failed = Some(error.clone());
                Err(error)
            }
        }
    }

    fn check_cap(&self, line_len: usize) -> Result<(), StreamError> {
        match self.limit {
            Some(limit) if self.events.accumulated.saturating_add(line_len) > limit => {
                Err(StreamError::EventTooLarge { limit })
            }
            _ => Ok(()),
        }
    }

    /// Index just past the terminator at `chunk[t]`, noting a CR that ends the chunk.
    fn skip_terminator(&mut self, chunk: &[u8], t: usize) -> usize {
        if chunk[t] == b'\r' {
            match chunk.get(t + 1) {
                Some(b'\n') => return t + 2,
                None => self.skip_lf = true,
                Some(_) => {}
            }
        }
        t + 1
    }

    /// Appends to the carried line (a large buffer is pre-faulted ahead of its end). The caller
    /// has checked the line against the size cap.
    fn carry_extend(&mut self, bytes: &[u8]) {
        let needed = self.carry.len().saturating_add(bytes.len());
        if let Some(limit) = self.limit {
            if needed > self.carry.capacity()
                && (ONE_GROWTH_FROM..=ONE_GROWTH_MAX).contains(&needed)
            {
                // A long line (one large event's data): rather than doubling, where `realloc`
                // copies the line so far into pages that then fault in one at a time, move it
                // once into a buffer as large as the cap lets this line grow (never more: the
                // cap is checked before every append; at most ONE_GROWTH_MAX, past which the
                // Vec doubles again), faulted in before the copy. Only the pages in use and a
                // few megabytes ahead become resident. (Without a cap, doubling stays:
                // `realloc` can move a large buffer's pages without copying.)
                let room = limit
                    .saturating_sub(self.events.accumulated)
                    .min(ONE_GROWTH_MAX)
                    .max(needed);
                let (mut grown, ahead) = Ahead::fresh(room, needed);
                grown.extend_from_slice(&self.carry);
                self.carry = grown;
                self.carry_ahead = ahead;
            }
        }
        self.carry.extend_from_slice(bytes);
        self.carry_ahead.grown(&self.carry, self.carry.capacity());
    }

    /// Checks the carried bytes that arrived since the last look, while they are in cache.
    fn check_carry_tail(&mut self) {
        if self.carry_bad.is_some() {
            return;
        }
        // a code point cut off at the chunk's end is left for the next look
        let tail = &self.carry[self.carry_checked..];
        let complete = complete_len(tail);
        match check(&tail[..complete]) {
            Check::Valid => self.carry_checked += complete,
            Check::Truncated { valid_up_to } => self.carry_checked += valid_up_to,
            Check::Invalid { valid_up_to } => {
                self.carry_bad = Some(self.carry_start + (self.carry_checked + valid_up_to) as u64);
            }
        }
    }

    /// Hands the completed carried line to the assembler, after the UTF-8 check.
    fn carried_line(
        &mut self,
        chunk: &[u8],
        at_end: bool,
        sink: &mut impl EventSink,
    ) -> Result<(), StreamError> {
        if let Some(offset) = self.carry_bad {
            return Err(StreamError::InvalidUtf8 { offset });
        }
        let checked_to = self.carry_start + self.carry_checked as u64;
        match check(&self.carry[self.carry_checked..]) {
            Check::Valid => {}
            Check::Truncated { valid_up_to } if at_end => {
                return Err(StreamError::IncompleteUtf8 {
                    offset: checked_to + valid_up_to as u64,
                })
            }
            Check::Truncated { valid_up_to } | Check::Invalid { valid_up_to } => {
                return Err(StreamError::InvalidUtf8 {
                    offset: checked_to + valid_up_to as u64,
                })
            }
        }
        self.events
            .line(chunk, Line::Carried(&mut self.carry), sink);
        if self.carry.capacity() > RETAIN_BYTES {
            self.carry = Vec::new();
        } else {
            self.carry.clear();
        }
        self.carry_checked = 0;
        Ok(())
    }

    fn feed_chunk(&mut self, chunk: &[u8], sink: &mut impl EventSink) -> Result<(), StreamError> {
        let base = self.offset;
        let mut pos = match self.bom.advance(chunk) {
            BomStep::NeedMore => return Ok(()),
            BomStep::Dropped(pos) => pos,
            BomStep::NotBom { held, resume } => {
                self.carry.extend_from_slice(&lines::BOM[..held]);
                self.carry_start = 0;
                resume
            }
        };
        if self.skip_lf && pos < chunk.len() {
            self.skip_lf = false;
            if chunk[pos] == b'\n' {
                pos += 1;
            }
        }

        if !self.carry.is_empty() {
            let Some(i) = find_terminator(&chunk[pos..]) else {
                self.check_cap(self.carry.len().saturating_add(chunk.len() - pos))?;
                self.carry_extend(&chunk[pos..]);
                self.check_carry_tail();
                return Ok(());
            };
            let t = pos + i;
            self.check_cap(self.carry.len().saturating_add(i))?;
            self.carry_extend(&chunk[pos..t]);
            self.carried_line(chunk, false, sink)?;
            pos = self.skip_terminator(chunk, t);
        }

        if let Some(last) = rfind_terminator(&chunk[pos..]) {
            let end = pos + last;
            // One check for all the complete lines; each line is only checked on its own (to
            // find which one fails first) when the whole run is not UTF-8.
            let all_valid = check(&chunk[pos..end]) == Check::Valid;
            while pos <= end {
                if all_valid && self.events.data_owned() {
                    pos = self.events.data_run(chunk, pos, end, self.limit);
                    if pos > end {
                        break;
                    }
                }
                let t = pos + find_terminator(&chunk[pos..=end]).unwrap_or(end - pos);
                self.check_cap(t - pos)?;
                if !all_valid {
                    if let Check::Invalid { valid_up_to } | Check::Truncated { valid_up_to } =
                        check(&chunk[pos..t])
                    {
                        return Err(StreamError::InvalidUtf8 {
                            offset: base + (pos + valid_up_to) as u64,
                        });
                    }
                }
                self.events.line(chunk, Line::InChunk(pos..t), sink);
                pos = self.skip_terminator(chunk, t);
            }
        }

        if pos < chunk.len() {
            self.check_cap(chunk.len() - pos)?;
            self.carry_extend(&chunk[pos..]);
            self.carry_start = base + pos as u64;
            self.check_carry_tail();
        }
        Ok(())
    }

    fn finish_stream(&mut self, sink: &mut impl EventSink) -> Result<(), StreamError> {
        self.skip_lf = false;
        let held = self.bom.held();
        if !held.is_empty() {
            self.carry.extend_from_slice(held);
            self.carry_start = 0;
            self.bom = Bom::Done;
        }
        if !self.carry.is_empty() {
            self.check_cap(self.carry.len())?;
            self.carried_line(&[], true, sink)?;
        }
        self.events.dispatch(&[], sink);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
