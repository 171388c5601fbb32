//! JSON tokenizing over UTF-8 bytes, free of Python: whitespace, literals, numbers (as their
//! text), strings (located in the input, or decoded into a scratch buffer when they have
//! escapes) and the punctuation of arrays and objects. `pyjson` builds Python values on it.
//!
//! The input must be UTF-8 (callers check it first), which is why only ASCII bytes are ever
//! looked at here. Errors name the problem and its line and column, as in "invalid JSON: ...".

use std::fmt;

/// Containers nested deeper than this are refused: as invalid JSON by the parser, as "nesting
/// too deep" by the encoder (`pyencode`). The top-level value is level 1. Both recurse once per
/// level, so this bounds their stack: an optimized build at this depth fits a 64 KiB thread
/// stack with a margin of more than half as many levels again (`crate::stack` refuses a level
/// before a smaller stack, or a debug build's larger frames, would overflow). The pure backend
/// refuses the same depth. Measurements: `tests/codec/test_nesting_limit.py`.
pub const MAX_DEPTH: usize = 100;

/// The problem named when a container would be level `MAX_DEPTH + 1` (at its bracket).
pub const DEPTH_EXCEEDED: &str = "nesting deeper than 100 levels";
const _: () = assert!(MAX_DEPTH == 100, "DEPTH_EXCEEDED names the limit");

/// The problem named when the thread's stack is too small for the next level, before
/// `MAX_DEPTH` (see `crate::stack`).
pub const STACK_EXHAUSTED: &str = "nesting too deep for this thread's stack";

/// Text that is not JSON: what is wrong, and where. A boxed str (two words), so that results
/// come back in registers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError(Box<str>);

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SyntaxError {}

/// Where the text of the string read last is (kept in the scanner rather than returned, so
/// the hot functions return a flag in a register).
#[derive(Debug, Clone, Copy, Default)]
pub struct StrSpan {
    /// `data[start..end]`, unless `decoded`.
    pub start: usize,
    pub end: usize,
    /// The text is all ASCII (only known for text that is not `decoded`).
    pub ascii: bool,
    /// It had escapes: the text is in the scratch buffer.
    pub decoded: bool,
    /// The decoded text holds lone surrogates (from `\uXXXX` escapes), encoded as UTF-8
    /// encodes code points.
    pub surrogates: bool,
}

impl StrSpan {
    /// Text without escapes: `data[start..end]`.
    #[inline(always)]
    const fn raw(start: usize, end: usize, ascii: bool) -> Self {
        Self {
            start,
            end,
            ascii,
            decoded: false,
            surrogates: false,
        }
    }

    /// Text with escapes, decoded into the scratch buffer (`start..end` is its raw span).
    #[inline(always)]
    const fn decoded(start: usize, end: usize, surrogates: bool) -> Self {
        Self {
            start,
            end,
            ascii: false,
            decoded: true,
            surrogates,
        }
    }
}

/// What stopped [`Scanner::copy_plain_ascii`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlainStop {
    /// The string's closing `"`.
    Quote,
    /// A `\\` (an escape).
    Escape,
    /// Text that is not plain ASCII (a control byte, a byte past ASCII) or the end of the data.
    Other,
}

/// A scan in progress over one document.
pub struct Scanner<'s, 'j> {
    data: &'j [u8],
    pos: usize,
    text: StrSpan,
    scratch: &'s mut Vec<u8>,
    /// The stack's floor for [`Scanner::check_depth`] (a scan runs on the thread it starts on).
    floor: crate::stack::Floor,
    /// Whether each string with a byte past ASCII is checked to be UTF-8 as it is read
    /// ([`Scanner::checking_utf8`]): for data not checked before.
    check_utf8: bool,
}

/// A word that, together with the length, determines up to eight bytes (overlapping loads
/// rather than a copy into a padded buffer, which compiles to a `memcpy` call).
#[inline]
pub(crate) fn word(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    if let Some(first) = bytes.first_chunk::<8>() {
        u64::from_le_bytes(*first)
    } else if n >= 4 {
        let lo = bytes
            .first_chunk::<4>()
            .map_or(0, |b| u32::from_le_bytes(*b));
        let hi = bytes
            .last_chunk::<4>()
            .map_or(0, |b| u32::from_le_bytes(*b));
        u64::from(lo) | u64::from(hi) << 32
    } else if n > 0 {
        u64::from(bytes[0]) | u64::from(bytes[n / 2]) << 8 | u64::from(bytes[n - 1]) << 16
    } else {
        0
    }
}

/// The first and the last eight bytes (overlapping when shorter than 16).
#[inline]
pub(crate) fn ends(bytes: &[u8]) -> (u64, u64) {
    match (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
        (Some(first), Some(last)) => (u64::from_le_bytes(*first), u64::from_le_bytes(*last)),
        _ => (word(bytes), 0),
    }
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Nonzero when some byte of `w` is below `n` (`n` <= 0x80).
#[inline]
fn has_less(w: u64, n: u8) -> u64 {
    w.wrapping_sub(LO * u64::from(n)) & !w & HI
}

/// The high bit of every byte of `w` that is zero, and only of those (no false hits above a
/// true one, unlike [`has_less`]), so any bit of the complement is exact too.
#[inline]
fn zero_bytes(w: u64) -> u64 {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    !(((w & LOW7).wrapping_add(LOW7)) | w) & HI
}

/// Nonzero when some byte of `w` equals `b`.
#[inline]
fn has_byte(w: u64, b: u8) -> u64 {
    has_less(w ^ (LO * u64::from(b)), 1)
}

/// The smallest and largest byte of `bytes` (`(0xFF, 0)` when empty), in lanes the compiler
/// turns into SIMD min/max.
fn min_max(bytes: &[u8]) -> (u8, u8) {
    let mut lo = [0xFFu8; 32];
    let mut hi = [0u8; 32];
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        for ((l, h), &b) in lo.iter_mut().zip(hi.iter_mut()).zip(block) {
            *l = (*l).min(b);
            *h = (*h).max(b);
        }
    }
    for (l, &b) in lo.iter_mut().zip(blocks.remainder()) {
        *l = (*l).min(b);
    }
    for (h, &b) in hi.iter_mut().zip(blocks.remainder()) {
        *h = (*h).max(b);
    }
    (
        lo.iter().copied().min().unwrap_or(0xFF),
        hi.iter().copied().max().unwrap_or(0),
    )
}

/// The bytes of `block` that end a plain run of string text (`"`, `\\`, below 0x20) and the
/// bytes that are not ASCII, as bit masks (bit `k` for byte `k`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn specials16(block: &[u8; 16]) -> (u32, u32) {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // SAFETY: SSE2 is in the x86-64 baseline, so these instructions exist on every CPU this
    // code runs on; the unaligned load reads exactly the 16 bytes of `block`.
    unsafe {
        let v = _mm_loadu_si128(block.as_ptr().cast());
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        // unsigned v <= 0x1F exactly when max(v, 0x1F) == 0x1F
        let low = _mm_set1_epi8(0x1F);
        let control = _mm_cmpeq_epi8(_mm_max_epu8(v, low), low);
        let special = _mm_or_si128(_mm_or_si128(quote, backslash), control);
        (
            _mm_movemask_epi8(special) as u32,
            _mm_movemask_epi8(v) as u32,
        )
    }
}

fn hex_value(b: u8) -> Option<u32> {
    match b {
        b'0'..=b'9' => Some(u32::from(b - b'0')),
        b'a'..=b'f' => Some(u32::from(b - b'a' + 10)),
        b'A'..=b'F' => Some(u32::from(b - b'A' + 10)),
        _ => None,
    }
}

impl<'s, 'j> Scanner<'s, 'j> {
    /// A scanner at the start of `data` (UTF-8), decoding escapes into `scratch`.
    pub fn new(data: &'j [u8], scratch: &'s mut Vec<u8>) -> Self {
        Self {
            data,
            pos: 0,
            text: StrSpan::default(),
            scratch,
            floor: crate::stack::Floor::here(),
            check_utf8: false,
        }
    }

    /// Check each string that has a byte past ASCII to be UTF-8 as it is read (a string that is
    /// not fails the scan), for data that was not checked before: outside strings, JSON text is
    /// ASCII (any other byte fails the scan anyway), so a successful scan then read UTF-8, and a
    /// whole text of ASCII strings costs no separate pass.
    pub fn checking_utf8(mut self) -> Self {
        self.check_utf8 = true;
        self
    }

    /// The error for a string at `start..end` that is not UTF-8, when it is checked.
    fn check_string_utf8(&self, start: usize, end: usize) -> Result<(), SyntaxError> {
        match simdutf8::compat::from_utf8(&self.data[start..end]) {
            Ok(_) => Ok(()),
            Err(e) => Err(self.fail("invalid UTF-8 in a string", start + e.valid_up_to())),
        }
    }

    /// Where the string read last is.
    pub fn text(&self) -> StrSpan {
        self.text
    }

    /// The decoded text of the string read last, when it had escapes.
    pub fn scratch(&self) -> &[u8] {
        self.scratch
    }

    /// The input.
    pub fn data(&self) -> &'j [u8] {
        self.data
    }

    /// The index of the next byte to read.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Moves the scan on to `pos`, past a string the caller read itself
    /// ([`Scanner::copy_plain_ascii`]).
    pub fn skip_to(&mut self, pos: usize) {
        self.pos = pos.min(self.data.len());
    }

    /// From `i` inside a string: copies its plain text up to the next `"` or `\\` into the
    /// start of `out` (which must have room for the rest of the data), at most one block of it
    /// at a time, in one pass ([`crate::simd::copy_plain`]; `stream`: around the cache), and
    /// says what is at the index reached: a `"`, a `\\`, or something else (a control byte or
    /// a byte past ASCII, or the end of the data: `Other`), or nothing yet (`None`: call again
    /// from there). Returns the bytes copied (the index moves by as many).
    pub fn copy_plain_ascii(
        &self,
        i: usize,
        out: &mut [std::mem::MaybeUninit<u8>],
        stream: bool,
    ) -> (usize, Option<PlainStop>) {
        const BLOCK: usize = 256 * 1024;
        let data = self.data;
        let end = (i + BLOCK).min(data.len());
        let block = &data[i..end];
        let stop = crate::simd::copy_plain(block, &mut out[..block.len()], stream);
        let found = match block.get(stop) {
            Some(b'"') => Some(PlainStop::Quote),
            Some(b'\\') => Some(PlainStop::Escape),
            Some(_) => Some(PlainStop::Other),
            None if end == data.len() => Some(PlainStop::Other),
            None => None,
        };
        (stop, found)
    }

    /// The escape at `i` (a `\\`) when it stands for an ASCII character: that byte and the
    /// escape's length; None for any other escape (or none).
    pub fn ascii_escape(&self, i: usize) -> Option<(u8, usize)> {
        let byte = match self.data.get(i + 1)? {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0C,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let code = self.hex4(i + 2).ok()?;
                return u8::try_from(code).ok().filter(u8::is_ascii).map(|b| (b, 6));
            }
            _ => return None,
        };
        Some((byte, 2))
    }

    /// An "invalid JSON" detail for a problem at byte `at`.
    pub fn fail(&self, what: &str, at: usize) -> SyntaxError {
        let at = at.min(self.data.len());
        let before = &self.data[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        SyntaxError(format!("{what} at line {line} column {column}").into_boxed_str())
    }

    #[inline]
    pub fn skip_ws(&mut self) {
        // compact JSON: no whitespace at all; pretty-printed JSON: often one space (after a
        // colon); both decided on a byte or two
        if let Some(b' ' | b'\t' | b'\n' | b'\r') = self.data.get(self.pos) {
            self.pos += 1;
            if let Some(b' ' | b'\t' | b'\n' | b'\r') = self.data.get(self.pos) {
                self.skip_ws_run();
            }
        }
    }

    /// Pretty-printed JSON: a newline and a run of indentation, taken eight bytes at a time
    /// rather than byte by byte (the end of a short run is then found without a branch per
    /// byte).
    #[inline(never)]
    fn skip_ws_run(&mut self) {
        let data = self.data;
        let mut i = self.pos;
        // 16 bytes at a time with SSE2 on x86-64 (fewer instructions than the word's four
        // zero-byte tests), the last few in words
        #[cfg(target_arch = "x86_64")]
        while let Some(block) = data.get(i..).and_then(|rest| rest.first_chunk::<16>()) {
            let other = !crate::simd::any_of16(block, *b" \n\t\r") & 0xFFFF;
            if other != 0 {
                self.pos = i + other.trailing_zeros() as usize;
                return;
            }
            i += 16;
        }
        while let Some(chunk) = data.get(i..).and_then(|rest| rest.first_chunk::<8>()) {
            let w = u64::from_le_bytes(*chunk);
            let ws = zero_bytes(w ^ (LO * u64::from(b' ')))
                | zero_bytes(w ^ (LO * u64::from(b'\n')))
                | zero_bytes(w ^ (LO * u64::from(b'\t')))
                | zero_bytes(w ^ (LO * u64::from(b'\r')));
            let other = !ws & HI;
            if other != 0 {
                self.pos = i + (other.trailing_zeros() / 8) as usize;
                return;
            }
            i += 8;
        }
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = data.get(i) {
            i += 1;
        }
        self.pos = i;
    }

    /// The first byte of the next value, after whitespace.
    pub fn peek(&mut self) -> Result<u8, SyntaxError> {
        self.skip_ws();
        match self.data.get(self.pos) {
            Some(&b) => Ok(b),
            None => Err(self.fail("EOF while parsing a value", self.pos)),
        }
    }

    /// Only whitespace may follow the value.
    pub fn end(&mut self) -> Result<(), SyntaxError> {
        self.skip_ws();
        if self.pos < self.data.len() {
            return Err(self.fail("trailing characters", self.pos));
        }
        Ok(())
    }

    pub fn literal(&mut self, word: &[u8]) -> Result<(), SyntaxError> {
        if self.data[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.fail("expected value", self.pos))
        }
    }

    /// Reads the string whose `"` is at the current position; [`Scanner::text`] and
    /// [`Scanner::str_bytes`] give its text.
    pub fn string(&mut self) -> Result<(), SyntaxError> {
        let data = self.data;
        let start = self.pos + 1;
        let mut i = start;
        let mut non_ascii = 0u64;
        loop {
            i = self.plain_run(i, &mut non_ascii);
            match data.get(i) {
                Some(b'"') => {
                    let ascii = non_ascii & HI == 0;
                    if self.check_utf8 && !ascii {
                        self.check_string_utf8(start, i)?;
                    }
                    self.pos = i + 1;
                    self.text = StrSpan::raw(start, i, ascii);
                    return Ok(());
                }
                Some(b'\\') => return self.escaped_string(start, i),
                Some(&b) if b < 0x20 => {
                    return Err(self.fail("control character found while parsing a string", i))
                }
                Some(&b) => {
                    non_ascii |= u64::from(b);
                    i += 1;
                }
                None => return Err(self.fail("EOF while parsing a string", i)),
            }
        }
    }

    /// From `i` inside a string: the index of the next `"`, `\\` or control byte, or of one of
    /// the last few bytes of the data (which the caller takes one by one); notes non-ASCII bytes.
    /// Short strings (keys, names, short texts) are searched 16 bytes at a time with SSE2 (part
    /// of every x86-64) up to 128 bytes, else 8 at a time in a word up to 32; longer ones go to
    /// [`Scanner::long_run`], whose block searches cost more to set up.
    #[inline(always)]
    fn plain_run(&self, mut i: usize, non_ascii: &mut u64) -> usize {
        let data = self.data;
        #[cfg(target_arch = "x86_64")]
        {
            let mut blocks = 0;
            while let Some(block) = data.get(i..).and_then(|rest| rest.first_chunk::<16>()) {
                if blocks == 8 {
                    return self.long_run(i, non_ascii);
                }
                blocks += 1;
                let (special, high) = specials16(block);
                if special != 0 {
                    let k = special.trailing_zeros();
                    if high & ((1u32 << k) - 1) != 0 {
                        *non_ascii |= HI;
                    }
                    return i + k as usize;
                }
                if high != 0 {
                    *non_ascii |= HI;
                }
                i += 16;
            }
        }
        let mut words = 0;
        while let Some(chunk) = data.get(i..i + 8) {
            if words == 4 {
                // a long string: search in blocks instead of word by word
                return self.long_run(i, non_ascii);
            }
            words += 1;
            let w = word(chunk);
            let special = has_byte(w, b'"') | has_byte(w, b'\\') | has_less(w, 0x20);
            if special != 0 {
                // the lowest flagged byte is exact (only bytes above it can be false hits)
                let k = (special.trailing_zeros() / 8) as usize;
                *non_ascii |= w & ((1u64 << (8 * k)) - 1);
                return i + k;
            }
            *non_ascii |= w;
            i += 8;
        }
        i
    }

    /// From `i` inside a string: the index of the next `"`, `\\` or control byte (or the end of
    /// the data), with SIMD searches over blocks that stay in cache; notes non-ASCII bytes.
    fn long_run(&self, mut i: usize, non_ascii: &mut u64) -> usize {
        const BLOCK: usize = 16 * 1024;
        let data = self.data;
        loop {
            let end = (i + BLOCK).min(data.len());
            let block = &data[i..end];
            let stop = memchr::memchr2(b'"', b'\\', block).unwrap_or(block.len());
            let (lo, hi) = min_max(&block[..stop]);
            if lo < 0x20 {
                return i + block[..stop].iter().position(|&b| b < 0x20).unwrap_or(0);
            }
            if hi >= 0x80 {
                *non_ascii |= HI;
            }
            i += stop;
            if stop < block.len() || end == data.len() {
                return i;
            }
        }
    }

    /// The slow path of [`Scanner::string`]: the string has escapes, starting at `first_escape`.
    fn escaped_string(&mut self, start: usize, first_escape: usize) -> Result<(), SyntaxError> {
        let data = self.data;
        self.scratch.clear();
        self.scratch.extend_from_slice(&data[start..first_escape]);
        let mut surrogates = false;
        let mut i = first_escape;
        loop {
            match data.get(i) {
                Some(b'"') => {
                    // escapes are ASCII: the string is UTF-8 when its raw bytes are
                    if self.check_utf8 && !data[start..i].is_ascii() {
                        self.check_string_utf8(start, i)?;
                    }
                    self.pos = i + 1;
                    self.text = StrSpan::decoded(start, i, surrogates);
                    return Ok(());
                }
                Some(b'\\') => {
                    let simple = match data.get(i + 1) {
                        Some(b'"') => b'"',
                        Some(b'\\') => b'\\',
                        Some(b'/') => b'/',
                        Some(b'b') => 0x08,
                        Some(b'f') => 0x0C,
                        Some(b'n') => b'\n',
                        Some(b'r') => b'\r',
                        Some(b't') => b'\t',
                        Some(b'u') => 0,
                        Some(_) => return Err(self.fail("invalid escape", i + 1)),
                        None => return Err(self.fail("EOF while parsing a string", i + 1)),
                    };
                    if simple != 0 {
                        self.scratch.push(simple);
                        i += 2;
                        continue;
                    }
                    let unit = self.hex4(i + 2)?;
                    i += 6;
                    let mut code = unit;
                    if (0xD800..0xDC00).contains(&unit) && data.get(i..i + 2) == Some(b"\\u") {
                        let low = self.hex4(i + 2)?;
                        if (0xDC00..0xE000).contains(&low) {
                            code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                            i += 6;
                        }
                    }
                    match char::from_u32(code) {
                        Some(c) => {
                            let mut buf = [0u8; 4];
                            self.scratch
                                .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                        }
                        None => {
                            // a lone surrogate, as json.loads keeps it
                            surrogates = true;
                            self.scratch.extend_from_slice(&[
                                0xE0 | (code >> 12) as u8,
                                0x80 | ((code >> 6) & 0x3F) as u8,
                                0x80 | (code & 0x3F) as u8,
                            ]);
                        }
                    }
                }
                Some(&b) if b < 0x20 => {
                    return Err(self.fail("control character found while parsing a string", i))
                }
                Some(&b) => {
                    self.scratch.push(b);
                    i += 1;
                }
                None => return Err(self.fail("EOF while parsing a string", i)),
            }
        }
    }

    fn hex4(&self, at: usize) -> Result<u32, SyntaxError> {
        let digits = self
            .data
            .get(at..at + 4)
            .ok_or_else(|| self.fail("EOF while parsing a string", self.data.len()))?;
        digits.iter().try_fold(0u32, |acc, &b| {
            hex_value(b)
                .map(|v| acc << 4 | v)
                .ok_or_else(|| self.fail("invalid \\u escape", at))
        })
    }

    /// The text of the string read last (UTF-8, or with encoded surrogates).
    pub fn str_bytes(&self) -> &[u8] {
        if self.text.decoded {
            self.scratch
        } else {
            &self.data[self.text.start..self.text.end]
        }
    }

    /// Scans the number at the current position: its bytes, and whether it is a float.
    pub fn scan_number(&mut self) -> Result<(&'j [u8], bool), SyntaxError> {
        let data = self.data;
        let start = self.pos;
        let mut i = start;
        if data.get(i) == Some(&b'-') {
            i += 1;
        }
        let digits = |mut i: usize| {
            while let Some(b'0'..=b'9') = data.get(i) {
                i += 1;
            }
            i
        };
        match data.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = digits(i + 1),
            _ => return Err(self.fail("expected value", start)),
        }
        let mut float = false;
        if data.get(i) == Some(&b'.') {
            let end = digits(i + 1);
            if end == i + 1 {
                return Err(self.fail("invalid number", end));
            }
            i = end;
            float = true;
        }
        if let Some(b'e' | b'E') = data.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = data.get(i) {
                i += 1;
            }
            let end = digits(i);
            if end == i {
                return Err(self.fail("invalid number", end));
            }
            i = end;
            float = true;
        }
        self.pos = i;
        Ok((&data[start..i], float))
    }

    /// Refuses a container at level `depth` (its bracket being the next byte): past
    /// `MAX_DEPTH`, or when the thread's stack has no room for it.
    pub fn check_depth(&self, depth: usize) -> Result<(), SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.fail(DEPTH_EXCEEDED, self.pos));
        }
        if !self.floor.enough_left() {
            return Err(self.fail(STACK_EXHAUSTED, self.pos));
        }
        Ok(())
    }

    /// At `[`: the first byte of the first item, `None` for `[]`.
    pub fn first_item(&mut self) -> Result<Option<u8>, SyntaxError> {
        self.pos += 1;
        let first = self.peek()?;
        if first == b']' {
            self.pos += 1;
            return Ok(None);
        }
        Ok(Some(first))
    }

    /// After an item: the first byte of the next one, `None` at `]`.
    pub fn next_item(&mut self) -> Result<Option<u8>, SyntaxError> {
        self.skip_ws();
        match self.data.get(self.pos) {
            Some(b',') => {
                self.pos += 1;
                let first = self.peek()?;
                if first == b']' {
                    return Err(self.fail("trailing comma", self.pos));
                }
                Ok(Some(first))
            }
            Some(b']') => {
                self.pos += 1;
                Ok(None)
            }
            Some(_) => Err(self.fail("expected `,` or `]`", self.pos)),
            None => Err(self.fail("EOF while parsing a list", self.pos)),
        }
    }

    /// At `{`: reads the first key (and its `:`), `false` for `{}`.
    pub fn first_key(&mut self) -> Result<bool, SyntaxError> {
        self.pos += 1;
        self.skip_ws();
        match self.data.get(self.pos) {
            Some(b'}') => {
                self.pos += 1;
                Ok(false)
            }
            Some(b'"') => self.key(),
            Some(_) => Err(self.fail("key must be a string", self.pos)),
            None => Err(self.fail("EOF while parsing an object", self.pos)),
        }
    }

    /// After a member's value: reads the next key (and its `:`), `false` at `}`.
    pub fn next_key(&mut self) -> Result<bool, SyntaxError> {
        self.skip_ws();
        match self.data.get(self.pos) {
            Some(b',') => {
                self.pos += 1;
                self.skip_ws();
                match self.data.get(self.pos) {
                    Some(b'"') => self.key(),
                    Some(b'}') => Err(self.fail("trailing comma", self.pos)),
                    Some(_) => Err(self.fail("key must be a string", self.pos)),
                    None => Err(self.fail("EOF while parsing an object", self.pos)),
                }
            }
            Some(b'}') => {
                self.pos += 1;
                Ok(false)
            }
            Some(_) => Err(self.fail("expected `,` or `}`", self.pos)),
            None => Err(self.fail("EOF while parsing an object", self.pos)),
        }
    }

    fn key(&mut self) -> Result<bool, SyntaxError> {
        self.string()?;
        self.skip_ws();
        match self.data.get(self.pos) {
            Some(b':') => {
                self.pos += 1;
                Ok(true)
            }
            Some(_) => Err(self.fail("expected `:`", self.pos)),
            None => Err(self.fail("EOF while parsing an object", self.pos)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A string as read: its text, and whether it was ASCII, decoded, with surrogates.
    type Read = (Vec<u8>, bool, bool, bool);

    /// The strings of a flat array.
    fn strings(json: &str) -> Result<Vec<Read>, String> {
        let mut scratch = Vec::new();
        let mut scan = Scanner::new(json.as_bytes(), &mut scratch);
        let mut out = Vec::new();
        let mut next = scan.peek().and_then(|_| scan.first_item());
        loop {
            match next {
                Ok(Some(b'"')) => {
                    scan.string().map_err(|e| e.to_string())?;
                    let t = scan.text();
                    out.push((scan.str_bytes().to_vec(), t.ascii, t.decoded, t.surrogates));
                    next = scan.next_item();
                }
                Ok(Some(other)) => return Err(format!("not a string: {}", other as char)),
                Ok(None) => break,
                Err(e) => return Err(e.to_string()),
            }
        }
        scan.end().map_err(|e| e.to_string())?;
        Ok(out)
    }

    #[test]
    fn strings_raw_and_decoded() {
        let long = "x".repeat(100) + "é" + &"y".repeat(20000);
        let json =
            format!(r#"["", "abc", "caf\u00e9", "é", "{long}", "a\"b", "\ud83d\ude00", "\ud800"]"#);
        let got = strings(&json).unwrap();
        assert_eq!(got[0], (b"".to_vec(), true, false, false));
        assert_eq!(got[1], (b"abc".to_vec(), true, false, false));
        assert_eq!(got[2], ("café".as_bytes().to_vec(), false, true, false));
        assert_eq!(got[3], ("é".as_bytes().to_vec(), false, false, false));
        assert_eq!(got[4], (long.as_bytes().to_vec(), false, false, false));
        assert_eq!(got[5], (b"a\"b".to_vec(), false, true, false));
        assert_eq!(got[6], ("😀".as_bytes().to_vec(), false, true, false));
        assert_eq!(got[7], (vec![0xED, 0xA0, 0x80], false, true, true));
    }

    #[test]
    fn ascii_flag_at_every_length_and_position() {
        for len in 0..80 {
            for at in 0..len {
                let mut text = vec![b'a'; len];
                let json = {
                    text[at] = b'\xc3';
                    let mut s = b"[\"".to_vec();
                    s.extend_from_slice(&text);
                    s.insert(2 + at + 1, 0xA9);
                    s.extend_from_slice(b"\"]");
                    String::from_utf8(s).unwrap()
                };
                let got = strings(&json).unwrap();
                assert!(!got[0].1, "{len} {at}");
            }
            let json = format!("[\"{}\"]", "a".repeat(len));
            assert!(strings(&json).unwrap()[0].1);
        }
    }

    #[test]
    fn string_errors() {
        let cases = [
            ("[\"abc", "EOF while parsing a string at line 1 column 6"),
            (
                "[\"a\u{1}\"]",
                "control character found while parsing a string at line 1 column 4",
            ),
            ("[\"\\q\"]", "invalid escape at line 1 column 4"),
            ("[\"\\u12\"]", "invalid \\u escape at line 1 column 5"),
            ("[\"\\u00", "EOF while parsing a string at line 1 column 7"),
        ];
        for (json, detail) in cases {
            assert_eq!(strings(json).unwrap_err(), detail, "{json:?}");
        }
        let long = format!("[\"{}\u{1f}\"]", "z".repeat(50_000));
        let err = strings(&long).unwrap_err();
        assert!(err.starts_with("control character"), "{err}");
    }

    #[test]
    fn strings_checked_for_utf8_as_they_are_read() {
        let read = |json: &[u8]| {
            let mut scratch = Vec::new();
            let mut scan = Scanner::new(json, &mut scratch).checking_utf8();
            scan.peek()?;
            let mut next = scan.first_item()?;
            let mut texts = Vec::new();
            while next.is_some() {
                scan.string()?;
                texts.push(scan.str_bytes().to_vec());
                next = scan.next_item()?;
            }
            scan.end().map(|()| texts)
        };
        let long = "y".repeat(20_000);
        let good = format!("[\"caf\u{e9}\", \"a\\n\u{1f600}\", \"{long}\u{e9}\"]");
        assert_eq!(
            read(good.as_bytes()).unwrap(),
            [
                "caf\u{e9}".as_bytes().to_vec(),
                "a\n\u{1f600}".as_bytes().to_vec(),
                format!("{long}\u{e9}").into_bytes()
            ]
        );
        for (json, column) in [
            (b"[\"ok\", \"ab\xff\"]".to_vec(), 11),
            (b"[\"\\n\xc3(\"]".to_vec(), 5),
            (
                [b"[\"".as_slice(), long.as_bytes(), b"\xe2\x82\"]"].concat(),
                20_003,
            ),
        ] {
            let err = read(&json).unwrap_err().to_string();
            assert_eq!(
                err,
                format!("invalid UTF-8 in a string at line 1 column {column}"),
                "{json:?}"
            );
        }
        // unchecked, the same bytes are the caller's business
        let mut scratch = Vec::new();
        let mut scan = Scanner::new(b"[\"ab\xff\"]", &mut scratch);
        scan.peek().unwrap();
        scan.first_item().unwrap();
        assert!(scan.string().is_ok());
    }

    #[test]
    fn numbers() {
        let mut scratch = Vec::new();
        let json = "[0, -0, 12, -3.5, 1e5, 2E-3, 1.25e+10]";
        let mut scan = Scanner::new(json.as_bytes(), &mut scratch);
        let mut next = scan.peek().and_then(|_| scan.first_item()).unwrap();
        let mut got = Vec::new();
        while next.is_some() {
            let (text, float) = scan.scan_number().unwrap();
            got.push((String::from_utf8(text.to_vec()).unwrap(), float));
            next = scan.next_item().unwrap();
        }
        let want = [
            ("0", false),
            ("-0", false),
            ("12", false),
            ("-3.5", true),
            ("1e5", true),
            ("2E-3", true),
            ("1.25e+10", true),
        ];
        assert_eq!(got, want.map(|(t, f)| (t.to_owned(), f)).to_vec(),);
        for bad in ["-", "1.", "1e", "1e+", ".5", "-x"] {
            let mut scratch = Vec::new();
            let mut scan = Scanner::new(bad.as_bytes(), &mut scratch);
            assert!(scan.scan_number().is_err(), "{bad}");
        }
    }

    #[test]
    fn structure_and_positions() {
        let mut scratch = Vec::new();
        let json = "{\"a\": [true, null],\n \"b\": {}}";
        let mut scan = Scanner::new(json.as_bytes(), &mut scratch);
        assert_eq!(scan.peek().unwrap(), b'{');
        assert!(scan.first_key().unwrap());
        assert_eq!(scan.str_bytes(), b"a");
        assert_eq!(scan.peek().unwrap(), b'[');
        assert_eq!(scan.first_item().unwrap(), Some(b't'));
        scan.literal(b"true").unwrap();
        assert_eq!(scan.next_item().unwrap(), Some(b'n'));
        scan.literal(b"null").unwrap();
        assert_eq!(scan.next_item().unwrap(), None);
        assert!(scan.next_key().unwrap());
        assert_eq!(scan.str_bytes(), b"b");
        assert_eq!(scan.peek().unwrap(), b'{');
        assert!(!scan.first_key().unwrap());
        assert!(!scan.next_key().unwrap());
        scan.end().unwrap();

        let mut scan = Scanner::new(b"[1,\n  2 3]", &mut scratch);
        scan.peek().unwrap();
        scan.first_item().unwrap();
        scan.scan_number().unwrap();
        scan.next_item().unwrap();
        scan.scan_number().unwrap();
        assert_eq!(
            scan.next_item().unwrap_err().to_string(),
            "expected `,` or `]` at line 2 column 5"
        );
    }

    #[test]
    fn whitespace_runs_end_exactly() {
        let ws = [b' ', b'\n', b'\t', b'\r'];
        for len in 0..40 {
            for stop in [b'x', 0x0B, 0x00, b'!', 0x1F, 0xC3] {
                let mut data: Vec<u8> = (0..len).map(|k| ws[(k * 7 + len) % 4]).collect();
                data.push(stop);
                data.extend_from_slice(b"   ");
                let mut scratch = Vec::new();
                let mut scan = Scanner::new(&data, &mut scratch);
                scan.skip_ws();
                assert_eq!(scan.position(), len, "{len} {stop}");
            }
            let data = vec![b' '; len];
            let mut scratch = Vec::new();
            let mut scan = Scanner::new(&data, &mut scratch);
            scan.skip_ws();
            assert_eq!(scan.position(), len);
        }
    }
}
