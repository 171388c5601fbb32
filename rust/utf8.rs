//! Strict UTF-8: a one-shot check that tells a bad byte from a code point cut off at the end,
//! and the incremental decoder behind `Utf8Decoder`.

use crate::errors::StreamError;

/// What [`check`] found in a byte slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// All of it is UTF-8.
    Valid,
    /// The bytes from `valid_up_to` on cannot be decoded whatever follows them.
    Invalid { valid_up_to: usize },
    /// Valid up to `valid_up_to`; the rest is the start of a code point that more bytes could
    /// complete.
    Truncated { valid_up_to: usize },
}

/// Checks `bytes`: the fast SIMD validator first, the one that reports positions only on failure.
pub fn check(bytes: &[u8]) -> Check {
    // the few bytes of a tiny chunk: most often ASCII, decided in a word or two without the
    // validator's setup
    if bytes.len() < 32 && bytes.is_ascii() {
        return Check::Valid;
    }
    if simdutf8::basic::from_utf8(bytes).is_ok() {
        return Check::Valid;
    }
    match simdutf8::compat::from_utf8(bytes) {
        Ok(_) => Check::Valid,
        Err(e) if e.error_len().is_none() => Check::Truncated {
            valid_up_to: e.valid_up_to(),
        },
        Err(e) => Check::Invalid {
            valid_up_to: e.valid_up_to(),
        },
    }
}

/// The length of `bytes` without a code point cut off at its end (one whose lead byte is among
/// the last three and starts a longer sequence than follows it), so that checking a chunk's
/// tail takes one pass of the fast validator instead of a second, position-finding one. Only
/// lead and continuation bytes are looked at: bytes that are not UTF-8 are left to [`check`].
pub fn complete_len(bytes: &[u8]) -> usize {
    let n = bytes.len();
    for back in 1..=n.min(3) {
        match bytes[n - back] {
            0x80..=0xBF => {}
            lead @ 0xC0.. if sequence_len(lead) > back => return n - back,
            _ => return n,
        }
    }
    n
}

/// The length of the code point a lead byte starts (1 for ASCII and for bytes that start none).
fn sequence_len(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

/// The text one [`Utf8Core::decode`] call completed: a code point that had been split across
/// chunks (`head`, possibly empty) followed by the valid text of the chunk itself (`body`).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Decoded<'a> {
    head: [u8; 4],
    head_len: usize,
    /// The chunk's own text, borrowed from it.
    pub body: &'a str,
}

impl Decoded<'_> {
    /// The code point completed by this chunk's first bytes, `""` if none.
    pub fn head(&self) -> &str {
        // The head is only ever set from bytes `check` found valid.
        std::str::from_utf8(&self.head[..self.head_len]).unwrap_or_default()
    }
}

/// Incremental strict UTF-8 decoder; offsets count from the first byte of the stream.
#[derive(Debug, Default)]
pub struct Utf8Core {
    pending: [u8; 4],
    pending_len: usize,
    /// Stream offset of the next byte to arrive.
    offset: u64,
    failed: Option<StreamError>,
}

impl Utf8Core {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    fn fail(&mut self, error: StreamError) -> StreamError {
        self.failed = Some(error.clone());
        error
    }

    /// Decodes `chunk`, returning the text of every code point it completes.
    pub fn decode<'a>(&mut self, chunk: &'a [u8]) -> Result<Decoded<'a>, StreamError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        let chunk_offset = self.offset;
        self.offset = self.offset.saturating_add(chunk.len() as u64);
        let mut decoded = Decoded::default();
        let mut rest = chunk;
        if self.pending_len > 0 {
            let have = self.pending_len;
            let take = (sequence_len(self.pending[0]) - have).min(rest.len());
            let mut buf = self.pending;
            buf[have..have + take].copy_from_slice(&rest[..take]);
            let pending_start = chunk_offset - have as u64;
            match check(&buf[..have + take]) {
                Check::Valid => {
                    decoded.head = buf;
                    decoded.head_len = have + take;
                    self.pending_len = 0;
                    rest = &rest[take..];
                }
                Check::Truncated { .. } => {
                    // `take` was all of the chunk: the code point is still incomplete.
                    self.pending = buf;
                    self.pending_len = have + take;
                    return Ok(decoded);
                }
                Check::Invalid { valid_up_to } => {
                    return Err(self.fail(StreamError::InvalidUtf8 {
                        offset: pending_start + valid_up_to as u64,
                    }))
                }
            }
        }
        let rest_offset = chunk_offset + (chunk.len() - rest.len()) as u64;
        let valid = match check(rest) {
            Check::Valid => rest,
            Check::Truncated { valid_up_to } => {
                let tail = &rest[valid_up_to..];
                self.pending[..tail.len()].copy_from_slice(tail);
                self.pending_len = tail.len();
                &rest[..valid_up_to]
            }
            Check::Invalid { valid_up_to } => {
                return Err(self.fail(StreamError::InvalidUtf8 {
                    offset: rest_offset + valid_up_to as u64,
                }))
            }
        };
        // `check` found `valid` to be UTF-8; this second look is a cheap formality.
        decoded.body = std::str::from_utf8(valid).unwrap_or_default();
        Ok(decoded)
    }

    /// Ends the stream: an error if it stopped inside a code point, else the decoder starts over.
    pub fn finish(&mut self) -> Result<(), StreamError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        if self.pending_len > 0 {
            let offset = self.offset - self.pending_len as u64;
            return Err(self.fail(StreamError::IncompleteUtf8 { offset }));
        }
        *self = Self::default();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(chunks: &[&[u8]]) -> Result<String, StreamError> {
        let mut core = Utf8Core::new();
        let mut out = String::new();
        for chunk in chunks {
            let d = core.decode(chunk)?;
            out.push_str(d.head());
            out.push_str(d.body);
        }
        core.finish()?;
        Ok(out)
    }

    #[test]
    fn check_kinds() {
        assert_eq!(check(b"abc"), Check::Valid);
        assert_eq!(check(b"ab\xE2\x82"), Check::Truncated { valid_up_to: 2 });
        assert_eq!(check(b"ab\xFFcd"), Check::Invalid { valid_up_to: 2 });
        assert_eq!(check(b"ab\xE2\x82x"), Check::Invalid { valid_up_to: 2 });
    }

    #[test]
    fn split_code_points_every_way() {
        let text = "a€b😀c日本";
        let bytes = text.as_bytes();
        for i in 0..=bytes.len() {
            for j in i..=bytes.len() {
                let got = decode_all(&[&bytes[..i], &bytes[i..j], &bytes[j..]]).unwrap();
                assert_eq!(got, text, "cut at {i},{j}");
            }
        }
    }

    #[test]
    fn offsets_do_not_depend_on_chunking() {
        let bytes: &[u8] = b"abc\xE2\x82\xACd\xE2\x82xyz";
        for i in 0..=bytes.len() {
            let err = decode_all(&[&bytes[..i], &bytes[i..]]).unwrap_err();
            assert_eq!(err, StreamError::InvalidUtf8 { offset: 7 }, "cut at {i}");
        }
    }

    #[test]
    fn complete_len_leaves_out_a_cut_code_point() {
        let text = "a\u{e9}\u{65e5}\u{1f600}".as_bytes();
        for end in 0..=text.len() {
            let cut = &text[..end];
            let complete = complete_len(cut);
            assert!(std::str::from_utf8(&cut[..complete]).is_ok(), "{end}");
            assert!(end - complete < 4, "{end}");
            // what is left out is exactly the cut-off code point
            assert_eq!(check(cut) == Check::Valid, complete == end, "{end}");
        }
        assert_eq!(complete_len(b"ab\x80\x80\x80\x80"), 6);
        assert_eq!(complete_len(b"ab\xFF"), 3);
    }

    #[test]
    fn incomplete_at_end() {
        let bytes: &[u8] = b"ab\xF0\x9F\x98";
        for i in 0..=bytes.len() {
            let err = decode_all(&[&bytes[..i], &bytes[i..]]).unwrap_err();
            assert_eq!(err, StreamError::IncompleteUtf8 { offset: 2 });
        }
    }

    #[test]
    fn failed_decoder_repeats_its_error() {
        let mut core = Utf8Core::new();
        assert_eq!(core.decode(b"ok").unwrap().body, "ok");
        let err = core.decode(b"\x80").unwrap_err();
        assert_eq!(err, StreamError::InvalidUtf8 { offset: 2 });
        assert_eq!(core.decode(b"fine").unwrap_err(), err);
        assert_eq!(core.finish().unwrap_err(), err);
    }

    #[test]
    fn finish_starts_a_new_stream() {
        let mut core = Utf8Core::new();
        core.decode(b"abc").unwrap();
        core.finish().unwrap();
        assert_eq!(
            core.decode(b"\xFF").unwrap_err(),
            StreamError::InvalidUtf8 { offset: 0 }
        );
    }
}
